"""The challenges' models: the catalogue (challenges, badges), members' stamp cards, dips, earned badges
and dip buddies."""

from django.conf import settings
from django.core.files.storage import storages
from django.db import models
from django.db.models import Q
from django.templatetags.static import static
from django.utils import timezone

from apps.core.formatting import dutch_date

from ..conditions import (
    DURATION_MAX_SECONDS,
    DURATION_MIN_SECONDS,
    NOTE_MAX_LENGTH,
    SPOT_MAX_LENGTH,
    TEMPERATURE_MAX,
    TEMPERATURE_MIN,
)


def photo_storage():
    """Private photo storage: local folder without URLs, or S3 with signed URLs (see settings)."""
    return storages["photos"]


class Challenge(models.Model):
    class Category(models.TextChoices):
        # The names members and /admin use: the dashboard lists every challenge but the stamp card
        # under "Bijzondere Challenges"; "normal" is the starter among them (Eerste Plonsen).
        NORMAL = "normal", "Bijzondere Challenge (instap)"
        WATERDIEREN = "waterdieren", "Waterdieren Stempelkaart"
        SPECIAL = "special", "Bijzondere Challenge"

    name = models.CharField("naam", max_length=120)
    description = models.TextField("omschrijving", blank=True)
    category = models.CharField("categorie", max_length=20, choices=Category.choices, default=Category.NORMAL)
    target_dips = models.PositiveSmallIntegerField("doel (plonsen)")
    badge_image_url = models.CharField(
        "badge-afbeelding", max_length=300, blank=True, help_text="Pad onder /static/ of een volledige URL."
    )
    is_active = models.BooleanField("actief", default=True)
    created_at = models.DateTimeField("aangemaakt op", auto_now_add=True)

    class Meta:
        verbose_name = "challenge"
        verbose_name_plural = "challenges"
        ordering = ["target_dips", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(target_dips__gte=1) & Q(target_dips__lte=1000), name="challenge_target_range"
            ),
            models.UniqueConstraint(fields=["name"], name="challenge_name_unique"),
        ]
        indexes = [models.Index(fields=["is_active", "target_dips"], name="challenge_active_target_idx")]

    def __str__(self):
        return self.name

    @property
    def badge_image_src(self) -> str:
        return image_src_for(self.badge_image_url)

    @property
    def is_waterdieren(self) -> bool:
        return self.category == self.Category.WATERDIEREN


class Badge(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="badges", verbose_name="challenge")
    name = models.CharField("naam", max_length=80)
    description = models.CharField("omschrijving", max_length=300, blank=True)
    image_url = models.CharField(
        "afbeelding", max_length=300, blank=True, help_text="Pad onder /static/ of een volledige URL."
    )
    milestone_dips = models.PositiveSmallIntegerField("mijlpaal (plonsen)")

    class Meta:
        verbose_name = "badge"
        verbose_name_plural = "badges"
        ordering = ["challenge", "milestone_dips"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "milestone_dips"], name="badge_milestone_unique"),
            models.CheckConstraint(condition=Q(milestone_dips__gte=1), name="badge_milestone_positive"),
        ]

    def __str__(self):
        return f"{self.name} ({self.milestone_dips})"

    @property
    def image_src(self) -> str:
        return image_src_for(self.image_url)


class UserChallenge(models.Model):
    """A member taking a challenge. Active until the member starts another or stops it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="user_challenges", verbose_name="gebruiker"
    )
    challenge = models.ForeignKey(
        Challenge, on_delete=models.PROTECT, related_name="user_challenges", verbose_name="challenge"
    )
    challenge_type = models.CharField("type", max_length=20, choices=Challenge.Category.choices)
    is_active = models.BooleanField("actief", default=True)
    started_at = models.DateTimeField("gestart op", default=timezone.now)
    completed_at = models.DateTimeField("voltooid op", null=True, blank=True)

    class Meta:
        verbose_name = "challenge van gebruiker"
        verbose_name_plural = "challenges van gebruikers"
        ordering = ["-started_at"]
        constraints = [
            # One stamp card at a time; this also means at most one active Waterdieren card.
            models.UniqueConstraint(fields=["user"], condition=Q(is_active=True), name="one_active_challenge_per_user"),
        ]
        indexes = [models.Index(fields=["is_active"], name="userchallenge_active_idx", condition=Q(is_active=True))]

    def __str__(self):
        return f"{self.user} – {self.challenge}"

    @property
    def is_completed(self) -> bool:
        return self.completed_at is not None


class Dip(models.Model):
    """One registered dip. `number` is its place on the stamp card, unique per card."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dips", verbose_name="gebruiker"
    )
    # Empty for a dip without a stamp card: a member who only takes part in dated club challenges (see
    # ClubChallenge). Every reader of a dip's card checks for None.
    user_challenge = models.ForeignKey(
        UserChallenge, on_delete=models.CASCADE, related_name="dips", verbose_name="challenge", null=True, blank=True
    )
    # On a card its place there (1..count, renumbered when a dip leaves); without a card the member's count of
    # card-less dips when it was registered (not renumbered: nothing is ranked on it).
    number = models.PositiveSmallIntegerField("nummer")
    dip_date = models.DateField("datum")
    photo = models.ImageField("foto", storage=photo_storage, max_length=200, blank=True)
    thumbnail = models.ImageField("miniatuur", storage=photo_storage, max_length=200, blank=True)
    created_at = models.DateTimeField("geregistreerd op", default=timezone.now)
    # Chosen by the phone per tap: a retry after a lost answer carries the same id and is not a new dip.
    request_id = models.UUIDField("verzoek-id", null=True, blank=True, editable=False)
    # The member's own log of the dip, all optional (limits and messages: conditions.py).
    water_temperature = models.DecimalField(
        "watertemperatuur (°C)", max_digits=3, decimal_places=1, null=True, blank=True
    )
    duration_seconds = models.PositiveIntegerField("tijd in het water (seconden)", null=True, blank=True)
    spot = models.CharField("plek", max_length=SPOT_MAX_LENGTH, blank=True, default="")
    note = models.CharField("notitie", max_length=NOTE_MAX_LENGTH, blank=True, default="")
    # "Deel deze foto met de club": off unless the member ticks it (the club feed, apps/club, reads it).
    share_photo = models.BooleanField("foto gedeeld met de club", default=False)

    class Meta:
        verbose_name = "plons"
        verbose_name_plural = "plonsen"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user_challenge", "number"], name="dip_number_unique_per_card"),
            models.CheckConstraint(condition=Q(number__gte=1), name="dip_number_positive"),
            models.UniqueConstraint(
                fields=["user_challenge", "request_id"],
                condition=Q(request_id__isnull=False),
                name="dip_request_once_per_card",
            ),
            # A resend of a dip without a card is found by the member and the request id.
            models.UniqueConstraint(
                fields=["user", "request_id"],
                condition=Q(request_id__isnull=False, user_challenge__isnull=True),
                name="dip_request_once_without_card",
            ),
            models.CheckConstraint(
                condition=Q(water_temperature__isnull=True)
                | Q(water_temperature__gte=TEMPERATURE_MIN, water_temperature__lte=TEMPERATURE_MAX),
                name="dip_water_temperature_range",
            ),
            models.CheckConstraint(
                condition=Q(duration_seconds__isnull=True)
                | Q(duration_seconds__gte=DURATION_MIN_SECONDS, duration_seconds__lte=DURATION_MAX_SECONDS),
                name="dip_duration_range",
            ),
        ]
        indexes = [
            models.Index(fields=["user_challenge", "-created_at"], name="dip_card_recent_idx"),
            # The admin's photo collage pages on (created_at, id), either way round, over the dips with a photo.
            models.Index(fields=["created_at", "id"], name="dip_photo_sort_idx", condition=~Q(photo="")),
            # A club challenge's progress: a member's dips by date inside its period.
            models.Index(fields=["user", "dip_date"], name="dip_user_date_idx"),
            # The club feed pages every member's dips newest first (apps/club/feed.py), on (created_at, id).
            models.Index(fields=["created_at", "id"], name="dip_recent_idx"),
        ]

    def __str__(self):
        return f"Plons {self.number} van {self.user}"


class PhysicalStatus(models.TextChoices):
    """Where the physical badge of an earned badge is: waiting, posted or handed over at an event."""

    TO_SEND = "te_versturen", "Nog te versturen"
    SENT = "verstuurd", "Verstuurd"
    HANDED_OVER = "uitgereikt", "Uitgereikt"


class UserBadge(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="badges", verbose_name="gebruiker"
    )
    badge = models.ForeignKey(Badge, on_delete=models.PROTECT, related_name="awards", verbose_name="badge")
    user_challenge = models.ForeignKey(
        UserChallenge, on_delete=models.CASCADE, related_name="badges", verbose_name="challenge"
    )
    earned_at = models.DateTimeField("verdiend op", default=timezone.now)
    physical_status = models.CharField(
        "fysieke badge", max_length=20, choices=PhysicalStatus.choices, default=PhysicalStatus.TO_SEND
    )
    physical_status_on = models.DateField("verstuurd/uitgereikt op", null=True, blank=True)

    class Meta:
        verbose_name = "verdiende badge"
        verbose_name_plural = "verdiende badges"
        ordering = ["-earned_at"]
        constraints = [
            models.UniqueConstraint(fields=["user_challenge", "badge"], name="badge_once_per_user_challenge"),
            # Sent and handed over carry their date; waiting has none.
            models.CheckConstraint(
                condition=(Q(physical_status=PhysicalStatus.TO_SEND) & Q(physical_status_on__isnull=True))
                | (
                    Q(physical_status__in=[PhysicalStatus.SENT, PhysicalStatus.HANDED_OVER])
                    & Q(physical_status_on__isnull=False)
                ),
                name="userbadge_physical_status_date",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "-earned_at"], name="userbadge_user_recent_idx"),
            models.Index(fields=["physical_status", "-earned_at"], name="userbadge_physical_idx"),
            # The club feed pages every shared badge newest first (apps/club/feed.py), on (earned_at, id).
            models.Index(fields=["earned_at", "id"], name="userbadge_recent_idx"),
        ]

    def __str__(self):
        return f"{self.badge.name} voor {self.user}"

    @property
    def physical_status_text(self) -> str:
        """What the member reads on the badge card, e.g. "Fysieke badge verstuurd op 3 december 2026"."""
        return physical_status_text(self.physical_status, self.physical_status_on)


PHYSICAL_STATUS_TEXTS = {
    PhysicalStatus.TO_SEND: "Fysieke badge: nog te versturen",
    PhysicalStatus.SENT: "Fysieke badge verstuurd op {date}",
    PhysicalStatus.HANDED_OVER: "Fysieke badge uitgereikt op {date}",
}


def physical_status_text(status: str, on) -> str:
    return PHYSICAL_STATUS_TEXTS[PhysicalStatus(status)].format(date=dutch_date(on))


def image_src_for(value: str) -> str:
    if not value:
        return ""
    if value.startswith(("http://", "https://", "/")):
        return value
    return static(value)


class DipBuddy(models.Model):
    """A clubmate named on a dip ("Met wie?"). The buddy confirms ("Zet op mijn kaart": their own dip on
    their active card for that date, `buddy_dip`) or declines ("Klopt niet"). Goes with either account."""

    class Status(models.TextChoices):
        PENDING = "pending", "Nog niet bevestigd"
        ACCEPTED = "accepted", "Op de kaart gezet"
        DECLINED = "declined", "Klopt niet"

    dip = models.ForeignKey(Dip, on_delete=models.CASCADE, related_name="buddies", verbose_name="plons")
    buddy = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="buddy_tags", verbose_name="buddy"
    )
    status = models.CharField("status", max_length=10, choices=Status.choices, default=Status.PENDING)
    # The buddy's own dip, once they put it on their card; kept as a record when that dip goes.
    buddy_dip = models.ForeignKey(
        Dip, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name="plons van de buddy"
    )
    created_at = models.DateTimeField("getagd op", default=timezone.now)
    decided_at = models.DateTimeField("beantwoord op", null=True, blank=True)

    class Meta:
        verbose_name = "buddy bij een plons"
        verbose_name_plural = "buddies bij plonsen"
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["dip", "buddy"], name="dip_buddy_once"),
            models.CheckConstraint(
                condition=(Q(status="pending") & Q(decided_at__isnull=True))
                | (Q(status__in=["accepted", "declined"]) & Q(decided_at__isnull=False)),
                name="dip_buddy_decided_at",
            ),
        ]
        indexes = [
            models.Index(fields=["buddy", "created_at"], name="dip_buddy_pending_idx", condition=Q(status="pending")),
        ]

    def __str__(self):
        return f"{self.buddy} bij {self.dip}"
