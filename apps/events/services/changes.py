"""Events changed in the Django admin (save, delete, take off, fill the waitlist) and the calendar link."""

import secrets
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import EVENTS, MEMBER, pages_changed

from .. import notices
from ..models import (
    CalendarFeed,
    Event,
    EventWaitlistEntry,
)
from .common import (
    _moved,
    _offers_refresh,
)
from .series import series_dates_fill


def event_save(*, event: Event) -> list[EventWaitlistEntry]:
    """Save an event edited in the Django admin. A raised (or removed) maximum offers the new places to the
    waitlist in order, under the event's lock. Returns the new offers. A new time or place is told to who
    signed up and who waits (apps.events.notices), as on /admin, and so is an event taken off (not active); an
    afgelast event made active again is no longer afgelast."""
    with transaction.atomic():
        pages_changed(EVENTS)
        before = Event.objects.select_for_update().filter(pk=event.pk).first() if event.pk is not None else None
        if event.is_active and event.cancelled_at is not None:
            event.cancelled_at, event.cancel_reason = None, ""
        if before is not None and _moved(before, event):
            event.moved_at = timezone.now()
        event.save()
        if before is not None and before.is_active and not event.is_active:
            notices.event_cancelled_notify(event=event)
        elif before is not None and event.is_active and _moved(before, event):
            notices.event_changed_notify(
                event=event, previous_date=before.event_date, previous_location=before.location
            )
        offers = _offers_refresh(event)
        if event.series_id is not None and (before is None or before.series_id != event.series_id):
            # A date added to a series: its members ("Ik kom elke week") are signed up for it too.
            series_dates_fill(event_id=event.pk)
        return offers


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
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is not None and event.is_active:
            notices.event_cancelled_notify(event=event, deleted=True)
        Event.objects.filter(pk=event_id).delete()


def events_deactivate(*, event_ids: Iterable[int]) -> int:
    """Take events off the dashboard without losing who signed up. Returns how many changed."""
    with transaction.atomic():
        pages_changed(EVENTS)
        events = list(Event.objects.select_for_update().filter(pk__in=list(event_ids), is_active=True))
        for event in events:
            notices.event_cancelled_notify(event=event)
        return Event.objects.filter(pk__in=[event.pk for event in events]).update(is_active=False)


def event_waitlist_fill(*, event_id: int) -> list[EventWaitlistEntry]:
    """Offer free places to the waitlist, in order: after a place was freed outside `event_leave` (an account
    deleted, a participant removed in the Django admin). Returns the new offers."""
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            return []
        return _offers_refresh(event)
