"""Members signing up and leaving, the waitlist and its offers."""

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import EVENTS, pages_changed

from ..models import (
    Event,
    EventParticipant,
    EventSeriesMember,
    EventSeriesSkip,
    EventWaitlistEntry,
)
from ..notices import waitlist_offer_notice_withdraw
from ..refusals import EventRefusal
from .common import (
    MESSAGE_FAILED,
    MESSAGE_OFFER_EXPIRED,
    MESSAGE_OFFER_NONE,
    MESSAGE_OFFER_NOT_YET,
    MESSAGE_PAST,
    EventAlreadyJoined,
    EventAlreadyWaitlisted,
    EventError,
    EventFull,
    Left,
    SignUp,
    _each_event_locked,
    _free_places,
    _lock_upcoming_event,
    _offers_refresh,
    waitlist_position,
)


def _sign_up(*, user: User, event_id: int, allow_waitlist: bool) -> SignUp:
    with transaction.atomic():
        pages_changed(EVENTS)
        event = _lock_upcoming_event(event_id)
        sign_up = _take_place(event=event, user=user, allow_waitlist=allow_waitlist)
        if event.series_id is not None:
            # A series member who skipped this date and signs up for it after all: no longer skipped.
            EventSeriesSkip.objects.filter(event=event, user=user).delete()
        return sign_up


def _take_place(*, event: Event, user: User, allow_waitlist: bool) -> SignUp:
    """Under the event's lock (`_lock_upcoming_event`): a place when there is one, else (with `allow_waitlist`)
    the end of the waitlist. Also for the dates of a series (apps.events.services.series)."""
    # Duplicate before full: a member who already has a place should hear that, not "vol".
    if EventParticipant.objects.filter(event=event, user=user).exists():
        raise EventAlreadyJoined()
    entry = EventWaitlistEntry.objects.filter(event=event, user=user).first()
    if entry is not None:
        raise EventAlreadyWaitlisted(waitlist_position(entry))
    if event.waitlist.exists():
        # Free places while members wait (an expired offer, a participant removed outside the services):
        # they are offered to the waitlist first.
        _offers_refresh(event)
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
            raise EventError(MESSAGE_FAILED, code=EventRefusal.EVENT_UNKNOWN)
        if event.event_date < timezone.now():
            raise EventError(MESSAGE_PAST, code=EventRefusal.PAST)
        deleted, _ = EventParticipant.objects.filter(event=event, user=user).delete()
        if event.series_id is not None:
            _series_skip_remember(event=event, user=user)
        if deleted:
            _offers_refresh(event)
            return Left.PLACE
        entry = EventWaitlistEntry.objects.filter(event=event, user=user).first()
        if entry is None:
            return None
        entry.delete()
        if entry.offer_expires_at is not None:
            # Their offer goes: its mail is withdrawn when unsent, and the place goes to the next in line.
            waitlist_offer_notice_withdraw(event_id=event.pk, user_ids=[user.pk])
            _offers_refresh(event)
        return Left.WAITLIST


def _series_skip_remember(*, event: Event, user: User) -> None:
    """A series member signing off for one date: that date is skipped, not signed up again for them."""
    if EventSeriesMember.objects.filter(series_id=event.series_id, user=user).exists():
        EventSeriesSkip.objects.get_or_create(event=event, user=user)


class OfferAnswer:
    """What `waitlist_offer_accept` / `waitlist_offer_decline` did."""

    TAKEN = "taken"  # the member has the place
    ALREADY = "already"  # they had it already (a second tap)
    DECLINED = "declined"  # the place went on to the next in line


class OfferEnded(EventError):
    """An offer that is no longer there: expired, or never made."""


def waitlist_offer_accept(*, user: User, event_id: int) -> str:
    """'Ik kom': the member's open offer becomes a place. The offer held the place, so this never overfills;
    the event's lock and the count are checked again all the same. An expired offer is refused (and its place
    offered to the next in line, committed before the refusal is raised)."""
    with transaction.atomic():
        pages_changed(EVENTS)
        event = _lock_upcoming_event(event_id)
        now = timezone.now()
        entry = EventWaitlistEntry.objects.filter(event=event, user=user).first()
        if entry is None or entry.offer_expires_at is None:
            if EventParticipant.objects.filter(event=event, user=user).exists():
                return OfferAnswer.ALREADY
            if entry is None:
                refusal = OfferEnded(MESSAGE_OFFER_NONE, code=EventRefusal.OFFER_NONE)
            else:
                refusal = OfferEnded(MESSAGE_OFFER_NOT_YET, code=EventRefusal.OFFER_NOT_YET)
        elif entry.offer_expires_at <= now:
            _offers_refresh(event)
            refusal = OfferEnded(MESSAGE_OFFER_EXPIRED, code=EventRefusal.OFFER_EXPIRED)
        else:
            entry.delete()
            free = _free_places(event, now=now)
            if free is not None and free <= 0:
                # Cannot happen while every place is handed out under this lock; the guard keeps the invariant.
                raise EventFull()
            EventParticipant.objects.create(event=event, user=user)
            waitlist_offer_notice_withdraw(event_id=event.pk, user_ids=[user.pk])
            return OfferAnswer.TAKEN
    raise refusal


def waitlist_offer_decline(*, user: User, event_id: int) -> str | None:
    """'Ik kan niet': the member leaves the waitlist and their offer (if any) goes to the next in line.
    Declining twice is not an error."""
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            raise EventError(MESSAGE_FAILED, code=EventRefusal.EVENT_UNKNOWN)
        entry = EventWaitlistEntry.objects.filter(event=event, user=user).first()
        if entry is None:
            return None
        entry.delete()
        waitlist_offer_notice_withdraw(event_id=event.pk, user_ids=[user.pk])
        _offers_refresh(event)
        return OfferAnswer.DECLINED


def waitlist_offers_expire(*, now: datetime.datetime | None = None) -> int:
    """Cron (`send_scheduled_mail`): end the offers that expired and offer their places to the next in line.
    Each event under its own lock, skipping one another run holds right now; idempotent."""
    now = now or timezone.now()
    expired = 0
    for event in _each_event_locked(EventWaitlistEntry.objects.filter(offer_expires_at__lte=now)):
        pages_changed(EVENTS)
        expired += event.waitlist.filter(offer_expires_at__lte=now).count()
        _offers_refresh(event, now=now)
    return expired
