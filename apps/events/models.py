import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

if TYPE_CHECKING:
    from django.db.models.expressions import Combinable

    from apps.accounts.models import User


# The lengths the organiser's form and the services check (one home: the columns below use them).
TITLE_MAX_LENGTH = 150
LOCATION_MAX_LENGTH = 200
CANCEL_REASON_MAX_LENGTH = 300


class EventSeries(models.Model):
    """Events made together with "Herhaal elke week tot": each one is an ordinary event that knows its series,
    so an edit or a cancellation can reach "dit event en de volgende"."""

    repeat_until = models.DateField("herhaal elke week tot")
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)

    class Meta:
        verbose_name = "reeks"
        verbose_name_plural = "reeksen"

    def __str__(self):
        return f"Reeks {self.pk} (tot {self.repeat_until:%d-%m-%Y})"


class Event(models.Model):
    title = models.CharField("titel", max_length=TITLE_MAX_LENGTH)
    event_date = models.DateTimeField("datum en tijd")
    location = models.CharField("locatie", max_length=LOCATION_MAX_LENGTH, blank=True)
    description = models.TextField("omschrijving", blank=True)
    max_participants = models.PositiveIntegerField("maximum deelnemers", null=True, blank=True)
    # The most guests (through the guest link) the event takes, within max_participants; empty: no cap of its own.
    guest_limit = models.PositiveIntegerField("maximum gasten", null=True, blank=True)
    is_active = models.BooleanField("actief", default=True)
    # Guests (no account) sign up through a public link that holds `guest_token`; they share the places.
    open_for_guests = models.BooleanField(
        "open voor gasten",
        default=False,
        help_text="Gasten zonder account kunnen zich aanmelden via een deelbare link (bijvoorbeeld in WhatsApp).",
    )
    guest_token = models.CharField(
        "gastenlink-token", max_length=64, unique=True, null=True, blank=True, editable=False
    )
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)
    series = models.ForeignKey(
        EventSeries,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events",
        verbose_name="reeks",
    )
    # Afgelast: the event stays (with who signed up) but is no longer active; the reason is told to them.
    cancelled_at = models.DateTimeField("afgelast op", null=True, blank=True)
    cancel_reason = models.CharField("reden van afgelasten", max_length=CANCEL_REASON_MAX_LENGTH, blank=True)
    # The last time its time or place changed: the club feed's "Verplaatst" item (apps.club.feed).
    moved_at = models.DateTimeField("verplaatst op", null=True, blank=True)

    class Meta:
        # Django's Dutch admin messages say "De {name} …": a de-word reads well ("het event" would not).
        verbose_name = "event"
        verbose_name_plural = "events"
        ordering = ["event_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(max_participants__isnull=True) | Q(max_participants__gte=1),
                name="event_max_participants_positive",
            ),
            models.CheckConstraint(
                condition=Q(cancelled_at__isnull=True) | Q(is_active=False),
                name="event_cancelled_is_inactive",
            ),
            models.CheckConstraint(
                condition=Q(guest_limit__isnull=True) | Q(guest_limit__gte=1),
                name="event_guest_limit_positive",
            ),
        ]
        indexes = [models.Index(fields=["event_date"], name="event_upcoming_idx", condition=Q(is_active=True))]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        # The guest link exists from the moment an event is opened for guests, however it was saved.
        if self.open_for_guests and not self.guest_token:
            self.guest_token = secrets.token_urlsafe(24)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "guest_token"}
        super().save(*args, **kwargs)

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled_at is not None


class EventSignUp(models.Model):
    """A member's name on one of an event's two lists: the participants or the waitlist.

    Both lists hold one row per member and event, stamped with the moment the member signed up. They
    differ in how an event and a member reach their rows (`event.participants`, `event.waitlist`, …),
    and Django only varies a relation's reverse name by class name, so each list declares its `event`
    and `user` with `relations()` instead of inheriting them.
    """

    created_at = models.DateTimeField("aangemeld op", default=timezone.now)

    class Meta:
        abstract = True

    @staticmethod
    def relations(
        *, event_rows: str, member_rows: str
    ) -> tuple["models.ForeignKey[Event | Combinable, Event]", "models.ForeignKey[User | Combinable, User]"]:
        """The `event` and `user` fields, reached back as `event.<event_rows>` and `user.<member_rows>`."""
        event: models.ForeignKey[Event | Combinable, Event] = models.ForeignKey(
            Event, on_delete=models.CASCADE, related_name=event_rows, verbose_name="event"
        )
        user: models.ForeignKey[User | Combinable, User] = models.ForeignKey(
            settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name=member_rows, verbose_name="gebruiker"
        )
        return event, user

    @staticmethod
    def once_per_member(name: str) -> models.UniqueConstraint:
        return models.UniqueConstraint(fields=["event", "user"], name=name)


class EventParticipant(EventSignUp):
    event, user = EventSignUp.relations(event_rows="participants", member_rows="event_participations")

    class Meta:
        verbose_name = "deelnemer"
        verbose_name_plural = "deelnemers"
        ordering = ["created_at"]
        constraints = [EventSignUp.once_per_member("one_participation_per_user_and_event")]

    def __str__(self):
        return f"{self.user} bij {self.event}"


class EventWaitlistEntry(EventSignUp):
    """A member waiting for a place at a full event.

    Entries are only made under the event's row lock (`event_sign_up`), so the id order is the order
    in which members asked: the first entry gets the next free place.

    A freed place is first *offered* (`offer_expires_at` set): the offer holds that place until the member
    says Ik kom / Ik kan niet, or until it expires; then the next in line gets it.
    """

    event, user = EventSignUp.relations(event_rows="waitlist", member_rows="event_waitlist_entries")
    created_at = models.DateTimeField("op de wachtlijst sinds", default=timezone.now)
    offered_at = models.DateTimeField("plek aangeboden op", null=True, blank=True)
    offer_expires_at = models.DateTimeField("aanbod geldig tot", null=True, blank=True)

    class Meta:
        verbose_name = "plek op de wachtlijst"
        verbose_name_plural = "wachtlijst"
        ordering = ["id"]
        constraints = [
            EventSignUp.once_per_member("one_waitlist_entry_per_user_and_event"),
            models.CheckConstraint(
                condition=Q(offer_expires_at__isnull=True) | Q(offered_at__isnull=False),
                name="waitlist_offer_has_moment",
            ),
        ]

    def __str__(self):
        return f"{self.user} wacht op {self.event}"


def guest_holds_place(now) -> Q:
    """The guests who take a place at `now`: the confirmed ones and those still within their hold."""
    return Q(confirm_by__isnull=True) | Q(confirm_by__gt=now)


class EventGuest(models.Model):
    """Someone without an account who signed up through an event's guest link. Guests take places like
    members do (counted under the event's lock). A new guest confirms their address with the link in their
    mail before `confirm_by` (GUEST_CONFIRM_MINUTES): until then the place is only held for them, after that
    it is free again and the sign-up goes (`send_scheduled_mail`). Removed 30 days after the event
    (`delete_old_guests`) unless they became members."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="guests", verbose_name="event")
    name = models.CharField("naam", max_length=150)
    email = models.EmailField("e-mailadres", max_length=254)
    safety_agreed_at = models.DateTimeField("akkoord met de veiligheidsregels op")
    created_at = models.DateTimeField("aangemeld op", default=timezone.now)
    # Empty: the address is confirmed (and every guest who signed up before confirmation existed).
    confirm_by = models.DateTimeField("bevestigen vóór", null=True, blank=True)
    invitation = models.ForeignKey(
        "invitations.Invitation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="uitnodiging voor de club",
    )

    class Meta:
        verbose_name = "gast"
        verbose_name_plural = "gasten"
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "email"], name="one_guest_sign_up_per_email_and_event")]

    def __str__(self):
        return f"{self.name} (gast) bij {self.event}"


class EventSeriesMember(models.Model):
    """ "Ik kom elke week": a member signed up for every date of a series. Each date still has its own
    sign-up (EventParticipant or a waitlist entry), made by apps.events.services.series for every coming date
    and for dates added later; attendance and waitlists keep working per date."""

    series = models.ForeignKey(EventSeries, on_delete=models.CASCADE, related_name="members", verbose_name="reeks")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="event_series", verbose_name="gebruiker"
    )
    created_at = models.DateTimeField("elke week sinds", default=timezone.now)

    class Meta:
        verbose_name = "vaste deelnemer van een reeks"
        verbose_name_plural = "vaste deelnemers van reeksen"
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["series", "user"], name="one_series_membership_per_user")]

    def __str__(self):
        return f"{self.user} elke week bij {self.series}"


class EventSeriesSkip(models.Model):
    """A series member who signed off for one date: remembered, so that date is not signed up again for them
    (signing up for that date themselves removes it)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="series_skips", verbose_name="event")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="event_series_skips", verbose_name="gebruiker"
    )
    created_at = models.DateTimeField("afgemeld op", default=timezone.now)

    class Meta:
        verbose_name = "overgeslagen datum"
        verbose_name_plural = "overgeslagen datums"
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="one_series_skip_per_user_and_event")]

    def __str__(self):
        return f"{self.user} slaat {self.event} over"


class CalendarFeed(models.Model):
    """The secret behind a member's calendar subscription (/agenda/<token>.ics): whoever has it reads
    the member's events, so it is long, random, and replaced when the member renews the link."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed", verbose_name="gebruiker"
    )
    token = models.CharField("token", max_length=64, unique=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)

    class Meta:
        verbose_name = "agenda-abonnement"
        verbose_name_plural = "agenda-abonnementen"

    def __str__(self):
        return f"Agenda van {self.user}"
