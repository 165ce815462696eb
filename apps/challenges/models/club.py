"""Club challenges (a goal the club reaches together, or each member on their own) and who joined them."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from .cards import image_src_for


class ClubChallenge(models.Model):
    """A dated club challenge made by an admin: "Elke dag" (every day of the period), "Aantal dagen" (N days of the
    period) or "Clubdoel" (N dips by all who take part together).

    The data model, decided: progress is derived, never stored. A member's progress is the number of distinct
    dates (`dip_date`) of their own dips inside the period; a club goal's total is the number of dips inside
    the period of everyone taking part. So one physical dip stays one Dip row (on the stamp card when the
    member has one, else without a card: `Dip.user_challenge` is empty), a day counts once for the day
    kinds whatever the number of dips on it, and undoing or deleting a dip moves the progress by itself.
    The dips of the period count also when they were registered before the member joined.
    What is stored is the fact that follows: `ClubChallengeEntry.completed_at`, set by the dip services
    (services/club_progress.py) when the progress reaches the goal, cleared when a removed dip takes it
    below again. That fact earns the challenge's badge (`badge_image_url`) and is what a feed can read.
    """

    class Kind(models.TextChoices):
        EVERY_DAY = "elke_dag", "Elke dag"
        DAYS = "dagen", "Aantal dagen"
        CLUB_GOAL = "clubdoel", "Clubdoel"

    name = models.CharField("naam", max_length=120)
    description = models.TextField("omschrijving", blank=True)
    starts_on = models.DateField("van")
    ends_on = models.DateField("tot en met")
    kind = models.CharField("soort", max_length=10, choices=Kind.choices)
    # N days ("Aantal dagen") or N dips together ("Clubdoel"); empty for "Elke dag" (the period's length).
    target = models.PositiveIntegerField("doel", null=True, blank=True)
    badge_image_url = models.CharField("badge-afbeelding", max_length=300, blank=True)
    created_at = models.DateTimeField("aangemaakt op", auto_now_add=True)

    class Meta:
        verbose_name = "clubchallenge"
        verbose_name_plural = "clubchallenges"
        ordering = ["starts_on", "name"]
        constraints = [
            models.UniqueConstraint(fields=["name"], name="clubchallenge_name_unique"),
            models.CheckConstraint(condition=Q(ends_on__gte=F("starts_on")), name="clubchallenge_period_order"),
            models.CheckConstraint(
                condition=(Q(kind="elke_dag") & Q(target__isnull=True))
                # Not null spelled out: a CHECK whose result is NULL passes.
                | (Q(kind__in=["dagen", "clubdoel"]) & Q(target__isnull=False) & Q(target__gte=1)),
                name="clubchallenge_target_for_kind",
            ),
        ]
        indexes = [models.Index(fields=["ends_on", "starts_on"], name="clubchallenge_period_idx")]

    def __str__(self):
        return self.name

    @property
    def days_total(self) -> int:
        return (self.ends_on - self.starts_on).days + 1

    @property
    def goal(self) -> int:
        """Days to swim for the day kinds, dips together for a club goal."""
        return self.days_total if self.kind == self.Kind.EVERY_DAY else int(self.target or 0)

    @property
    def is_club_goal(self) -> bool:
        return self.kind == self.Kind.CLUB_GOAL

    @property
    def kind_display(self) -> str:
        """ "Elke dag", "20 dagen" or "Clubdoel: 500 plonsen samen"."""
        if self.kind == self.Kind.DAYS:
            return f"{self.target} dag" if self.target == 1 else f"{self.target} dagen"
        if self.kind == self.Kind.CLUB_GOAL:
            return f"Clubdoel: {self.target} plonsen samen"
        return "Elke dag"

    @property
    def badge_image_src(self) -> str:
        return image_src_for(self.badge_image_url)

    def runs_on(self, day) -> bool:
        return self.starts_on <= day <= self.ends_on


class ClubChallengeEntry(models.Model):
    """A member taking part in a club challenge ("Doe mee"). `completed_at`: when the goal was reached."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_entries", verbose_name="gebruiker"
    )
    club_challenge = models.ForeignKey(
        ClubChallenge, on_delete=models.PROTECT, related_name="entries", verbose_name="clubchallenge"
    )
    joined_at = models.DateTimeField("meegedaan sinds", default=timezone.now)
    completed_at = models.DateTimeField("voltooid op", null=True, blank=True)

    class Meta:
        verbose_name = "deelname aan clubchallenge"
        verbose_name_plural = "deelnames aan clubchallenges"
        ordering = ["-joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["club_challenge", "user"], name="clubentry_once_per_member"),
        ]
        indexes = [
            # The club feed pages the completed entries newest first (apps/club/feed.py), on (completed_at, id).
            models.Index(
                fields=["completed_at", "id"], name="clubentry_completed_idx", condition=Q(completed_at__isnull=False)
            ),
        ]

    def __str__(self):
        return f"{self.user} – {self.club_challenge}"
