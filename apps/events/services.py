"""Event rules. `event_join` is the only way a member gets a place at an event."""

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User

from .models import Event, EventParticipant

MESSAGE_JOINED = "Je bent aangemeld voor dit event!"
MESSAGE_LEFT = "Je bent afgemeld voor dit event"
MESSAGE_DUPLICATE = "Je bent al aangemeld voor dit event"
MESSAGE_FAILED = "Er ging iets mis met de aanmelding"
MESSAGE_FULL = "Dit event is vol."
MESSAGE_PAST = "Dit event is al voorbij."
MESSAGE_INACTIVE = "Dit event gaat niet door of is niet meer beschikbaar."


class EventError(Exception):
    """A refused sign-up or cancellation; the message is Dutch and meant for the member."""


class EventAlreadyJoined(EventError):
    def __init__(self, message: str = MESSAGE_DUPLICATE):
        super().__init__(message)


class EventFull(EventError):
    def __init__(self, message: str = MESSAGE_FULL):
        super().__init__(message)


def event_join(*, user: User, event_id: int) -> EventParticipant:
    """Give the member a place at an upcoming, active event that has room.

    The event row is locked for the whole check-then-insert, so parallel sign-ups are counted one
    after another and never overfill the event. The unique (event, user) constraint is the second
    guard: a duplicate that slips past the check still cannot become a second participation.
    """
    with transaction.atomic():
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            raise EventError(MESSAGE_FAILED)
        if not event.is_active:
            raise EventError(MESSAGE_INACTIVE)
        if event.event_date < timezone.now():
            raise EventError(MESSAGE_PAST)
        # Duplicate before full: a member who already has a place should hear that, not "vol".
        if EventParticipant.objects.filter(event=event, user=user).exists():
            raise EventAlreadyJoined()
        if event.max_participants is not None and event.participants.count() >= event.max_participants:
            raise EventFull()
        try:
            # A savepoint, so the outer transaction (and its lock) survives a constraint violation.
            with transaction.atomic():
                return EventParticipant.objects.create(event=event, user=user)
        except IntegrityError as exc:
            raise EventAlreadyJoined() from exc


def event_leave(*, user: User, event_id: int) -> bool:
    """Give up the member's place. Returns whether there was a place to give up.

    Leaving twice is not an error (a double tap on "Afmelden" ends where the member wanted). A past
    event keeps its participant list: that is the record of who was there.
    """
    with transaction.atomic():
        # Same lock as event_join: a cancellation and a sign-up for the last place are serialised.
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            raise EventError(MESSAGE_FAILED)
        if event.event_date < timezone.now():
            raise EventError(MESSAGE_PAST)
        deleted, _ = EventParticipant.objects.filter(event=event, user=user).delete()
        return deleted > 0


def events_deactivate(*, event_ids: Iterable[int]) -> int:
    """Take events off the dashboard without losing who signed up. Returns how many changed."""
    return Event.objects.filter(pk__in=list(event_ids), is_active=True).update(is_active=False)
