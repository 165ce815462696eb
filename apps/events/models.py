from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

if TYPE_CHECKING:
    from django.db.models.expressions import Combinable

    from apps.accounts.models import User


class Event(models.Model):
    title = models.CharField("titel", max_length=150)
    event_date = models.DateTimeField("datum en tijd")
    location = models.CharField("locatie", max_length=200, blank=True)
    description = models.TextField("omschrijving", blank=True)
    max_participants = models.PositiveIntegerField("maximum deelnemers", null=True, blank=True)
    is_active = models.BooleanField("actief", default=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)

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
        ]
        indexes = [models.Index(fields=["event_date"], name="event_upcoming_idx", condition=Q(is_active=True))]

    def __str__(self):
        return self.title


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
    """

    event, user = EventSignUp.relations(event_rows="waitlist", member_rows="event_waitlist_entries")
    created_at = models.DateTimeField("op de wachtlijst sinds", default=timezone.now)

    class Meta:
        verbose_name = "plek op de wachtlijst"
        verbose_name_plural = "wachtlijst"
        ordering = ["id"]
        constraints = [EventSignUp.once_per_member("one_waitlist_entry_per_user_and_event")]

    def __str__(self):
        return f"{self.user} wacht op {self.event}"


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
