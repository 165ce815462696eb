"""Event rules: places, the waitlist and the calendar subscription.

A place is only handed out under the event's row lock: by `event_sign_up`/`event_join`, or by
`_promote_waitlist` when a place frees up (a cancellation, or an admin raising the maximum) in the same
transaction. So parallel sign-ups and cancellations never overfill an event or skip a waiting member.
"""

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.errors import DomainError
from apps.core.page_cache import EVENTS, MEMBER, pages_changed
from apps.notifications.models import Mail
from apps.notifications.services import member_mail_queue

from .models import CalendarFeed, Event, EventParticipant, EventWaitlistEntry

MESSAGE_JOINED = "Je bent aangemeld voor dit event!"
MESSAGE_LEFT = "Je bent afgemeld voor dit event"
MESSAGE_DUPLICATE = "Je bent al aangemeld voor dit event"
MESSAGE_FAILED = "Er ging iets mis met de aanmelding"
MESSAGE_FULL = "Dit event is vol."
MESSAGE_PAST = "Dit event is al voorbij."
MESSAGE_INACTIVE = "Dit event gaat niet door of is niet meer beschikbaar."
MESSAGE_WAITLISTED = "Dit event is vol. Je staat op de wachtlijst (plek {position})."
MESSAGE_WAITLIST_POSITION = "Je staat op de wachtlijst (plek {position})"
MESSAGE_WAITLIST_LEFT = "Je staat niet meer op de wachtlijst"
MESSAGE_CALENDAR_RENEWED = "Je nieuwe agenda-link staat klaar. De oude link werkt niet meer."
MESSAGE_CALENDAR_CREATED = "Je agenda-link staat klaar."


class EventError(DomainError):
    """A refused sign-up or cancellation; the message is Dutch and meant for the member."""

    status = 409


class EventAlreadyJoined(EventError):
    def __init__(self, message: str = MESSAGE_DUPLICATE):
        super().__init__(message)


class EventFull(EventError):
    def __init__(self, message: str = MESSAGE_FULL):
        super().__init__(message)


class EventAlreadyWaitlisted(EventError):
    def __init__(self, position: int):
        self.position = position
        super().__init__(MESSAGE_WAITLIST_POSITION.format(position=position))


@dataclass(frozen=True)
class SignUp:
    """The outcome of `event_sign_up`: a place, or a place in the queue (1 is next)."""

    participant: EventParticipant | None = None
    waitlist_position: int | None = None


class Left:
    """What `event_leave` gave up."""

    PLACE = "place"
    WAITLIST = "waitlist"


def _lock_upcoming_event(event_id: int) -> Event:
    event = Event.objects.select_for_update().filter(pk=event_id).first()
    if event is None:
        raise EventError(MESSAGE_FAILED)
    if not event.is_active:
        raise EventError(MESSAGE_INACTIVE)
    if event.event_date < timezone.now():
        raise EventError(MESSAGE_PAST)
    return event


def _free_places(event: Event) -> int | None:
    """None: no maximum."""
    if event.max_participants is None:
        return None
    return max(event.max_participants - event.participants.count(), 0)


def waitlist_position(entry: EventWaitlistEntry) -> int:
    return EventWaitlistEntry.objects.filter(event_id=entry.event_id, id__lte=entry.id).count()


def _promote_waitlist(event: Event) -> list[EventParticipant]:
    """Give free places to the first ones on the waitlist, in order, and mail them. Call under the event's lock."""
    if not event.is_active or event.event_date < timezone.now():
        return []
    free = _free_places(event)
    waiting = event.waitlist.select_related("user").order_by("id")
    entries = list(waiting if free is None else waiting[:free])
    if not entries:
        return []
    now = timezone.now()
    promoted = EventParticipant.objects.bulk_create(
        [EventParticipant(event=event, user=entry.user, created_at=now) for entry in entries]
    )
    EventWaitlistEntry.objects.filter(pk__in=[entry.pk for entry in entries]).delete()
    for entry in entries:
        member_mail_queue(kind=Mail.Kind.WAITLIST_PROMOTION, user=entry.user, event_id=event.pk)
    return promoted


def _sign_up(*, user: User, event_id: int, allow_waitlist: bool) -> SignUp:
    with transaction.atomic():
        pages_changed(EVENTS)
        event = _lock_upcoming_event(event_id)
        # Duplicate before full: a member who already has a place should hear that, not "vol".
        if EventParticipant.objects.filter(event=event, user=user).exists():
            raise EventAlreadyJoined()
        entry = EventWaitlistEntry.objects.filter(event=event, user=user).first()
        if entry is not None:
            raise EventAlreadyWaitlisted(waitlist_position(entry))
        if event.waitlist.exists():
            # Free places while members wait (a participant removed outside the services): they go first.
            _promote_waitlist(event)
        free = _free_places(event)
        if free is None or free > 0:
            try:
                # A savepoint, so the outer transaction (and its lock) survives a constraint violation.
                with transaction.atomic():
                    return SignUp(participant=EventParticipant.objects.create(event=event, user=user))
            except IntegrityError as exc:
                raise EventAlreadyJoined() from exc
        if not allow_waitlist:
            raise EventFull()
        entry = EventWaitlistEntry.objects.create(event=event, user=user)
        return SignUp(waitlist_position=waitlist_position(entry))


def event_sign_up(*, user: User, event_id: int) -> SignUp:
    """A member's 'Aanmelden' or 'Op de wachtlijst': a place when there is one, else the end of the waitlist.

    The event row is locked for the whole check-then-insert, so parallel sign-ups are counted one
    after another. The unique constraints on (event, user) are the second guard.
    """
    return _sign_up(user=user, event_id=event_id, allow_waitlist=True)


def event_join(*, user: User, event_id: int) -> EventParticipant:
    """A place or nothing (EventFull): for the admin, who signs a member up on their behalf."""
    participant = _sign_up(user=user, event_id=event_id, allow_waitlist=False).participant
    assert participant is not None  # without the waitlist a sign-up is a place or EventFull
    return participant


def event_leave(*, user: User, event_id: int) -> str | None:
    """Give up the member's place or waitlist entry: returns `Left.PLACE`, `Left.WAITLIST` or None.

    Leaving twice is not an error (a double tap on "Afmelden" ends where the member wanted). A past
    event keeps its participant list: that is the record of who was there. A freed place goes to the
    first on the waitlist in the same transaction.
    """
    with transaction.atomic():
        pages_changed(EVENTS)
        # Same lock as a sign-up: a cancellation and a sign-up for the last place are serialised.
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            raise EventError(MESSAGE_FAILED)
        if event.event_date < timezone.now():
            raise EventError(MESSAGE_PAST)
        deleted, _ = EventParticipant.objects.filter(event=event, user=user).delete()
        if deleted:
            _promotion_mail_withdraw(event=event, user=user)
            _promote_waitlist(event)
            return Left.PLACE
        deleted, _ = EventWaitlistEntry.objects.filter(event=event, user=user).delete()
        return Left.WAITLIST if deleted else None


def _promotion_mail_withdraw(*, event: Event, user: User) -> None:
    """A place given up before its "Je bent van de wachtlijst gehaald" went out (a member leaving at the moment
    of the promotion): that promotion no longer stands, so its mail is not sent. Call under the event's lock.
    The mail's row lock waits for a worker sending it right now; a mail already sent stays on record."""
    pending = Mail.objects.select_for_update().filter(
        kind=Mail.Kind.WAITLIST_PROMOTION,
        event_id=event.pk,
        user=user,
        status__in=[Mail.Status.QUEUED, Mail.Status.FAILED],
    )
    Mail.objects.filter(pk__in=list(pending.values_list("pk", flat=True))).delete()


def event_save(*, event: Event) -> list[EventParticipant]:
    """Save an event edited in the Django admin. A raised (or removed) maximum hands the new places to the
    waitlist in order, under the event's lock. Returns who got a place."""
    with transaction.atomic():
        pages_changed(EVENTS)
        if event.pk is not None:
            Event.objects.select_for_update().filter(pk=event.pk).first()
        event.save()
        return _promote_waitlist(event)


def calendar_feed_renew(*, user: User) -> CalendarFeed:
    """A new secret link for the member's calendar subscription; the old one stops working at once."""
    with transaction.atomic():
        feed, _ = CalendarFeed.objects.update_or_create(
            user=user, defaults={"token": secrets.token_urlsafe(32), "created_at": timezone.now()}
        )
        pages_changed(MEMBER, user_ids=[user.pk])  # the link on /events
    return feed


def event_delete(*, event_id: int) -> None:
    """Delete an event (the Django admin) with its sign-ups, waitlist and mails; every list of events
    shows it gone, also when nobody had signed up."""
    with transaction.atomic():
        pages_changed(EVENTS)
        Event.objects.filter(pk=event_id).delete()


def events_deactivate(*, event_ids: Iterable[int]) -> int:
    """Take events off the dashboard without losing who signed up. Returns how many changed."""
    with transaction.atomic():
        pages_changed(EVENTS)
        return Event.objects.filter(pk__in=list(event_ids), is_active=True).update(is_active=False)


def event_waitlist_fill(*, event_id: int) -> list[EventParticipant]:
    """Hand free places to the waitlist, in order: after a place was freed outside `event_leave` (an account
    deleted, a participant removed in the Django admin)."""
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            return []
        return _promote_waitlist(event)
