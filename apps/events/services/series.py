"""A weekly series as one thing: "Ik kom elke week" and "Ik stop met deze reeks".

A series member (EventSeriesMember) has an ordinary sign-up on every coming date of the series: a place when the
date has room, else the end of its waitlist, as a sign-up of their own would. Attendance, waitlists and offers
keep working per date. Signing off for one date (`event_leave`) removes only that date's sign-up and remembers
the skip (EventSeriesSkip), so the date is not signed up again for them; signing up for it after all forgets it.

Locks: the series row first (a member tapping twice makes one membership; two members joining at once are counted
one after the other), then each date under its own lock (`_lock_upcoming_event`) in date order, as the
organiser's "dit event en de volgende" locks them. Nothing locks a date and then its series.
"""

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import EVENTS, pages_changed

from ..models import Event, EventParticipant, EventSeries, EventSeriesMember, EventSeriesSkip, EventWaitlistEntry
from ..refusals import EventRefusal
from .common import EventAlreadyJoined, EventAlreadyWaitlisted, EventError, _lock_upcoming_event
from .signups import _take_place, event_leave

MESSAGE_SERIES_UNKNOWN = "Deze reeks bestaat niet (meer)."
MESSAGE_SERIES_OVER = "Deze reeks heeft geen komende data meer."
MESSAGE_SERIES_JOINED = "Top, je komt elke week! Je bent aangemeld voor {places} {places_word}."
MESSAGE_SERIES_JOINED_WAITING = " Voor {waiting} {waiting_word} sta je op de wachtlijst."
MESSAGE_SERIES_ALREADY = "Je komt al elke week."
MESSAGE_SERIES_LEFT = "Je bent gestopt met deze reeks en afgemeld voor de komende data."
MESSAGE_SERIES_NOT_MEMBER = "Je kwam niet elke week: er is niets veranderd."


@dataclass(frozen=True)
class SeriesJoin:
    """What "Ik kom elke week" did: places and waitlist spots on the coming dates (0 and 0 on a second tap)."""

    already: bool = False
    places: int = 0
    waiting: int = 0

    def message(self) -> str:
        if self.already:
            return MESSAGE_SERIES_ALREADY
        text = MESSAGE_SERIES_JOINED.format(places=self.places, places_word=_dates_word(self.places))
        if self.waiting:
            text += MESSAGE_SERIES_JOINED_WAITING.format(waiting=self.waiting, waiting_word=_dates_word(self.waiting))
        return text


def _dates_word(count: int) -> str:
    return "datum" if count == 1 else "data"


def _lock_series(series_id: int) -> EventSeries:
    series = EventSeries.objects.select_for_update().filter(pk=series_id).first()
    if series is None:
        raise EventError(MESSAGE_SERIES_UNKNOWN, code=EventRefusal.SERIES_UNKNOWN, status=404)
    return series


def _coming_dates(series_id: int, *, now: datetime.datetime) -> list[int]:
    return list(
        Event.objects.filter(series_id=series_id, is_active=True, event_date__gt=now)
        .order_by("event_date", "pk")
        .values_list("pk", flat=True)
    )


def _date_sign_up(*, event_id: int, user: User) -> str | None:
    """One date for a series member, under that date's lock: "place", "waiting", or None (they were on it
    already, or the date went meanwhile)."""
    try:
        event = _lock_upcoming_event(event_id)
        sign_up = _take_place(event=event, user=user, allow_waitlist=True)
    except (EventAlreadyJoined, EventAlreadyWaitlisted):
        return None
    except EventError as error:
        if error.code in (EventRefusal.INACTIVE, EventRefusal.PAST, EventRefusal.EVENT_UNKNOWN):
            return None
        raise
    return "place" if sign_up.participant is not None else "waiting"


def series_join(*, user: User, series_id: int, now: datetime.datetime | None = None) -> SeriesJoin:
    """ "Ik kom elke week": the member becomes a series member and is signed up for every coming date (a place
    where there is room, else the waitlist), except the dates they skipped. A second tap changes nothing."""
    now = now or timezone.now()
    with transaction.atomic():
        pages_changed(EVENTS)
        series = _lock_series(series_id)
        dates = _coming_dates(series.pk, now=now)
        if not dates:
            raise EventError(MESSAGE_SERIES_OVER, code=EventRefusal.SERIES_OVER)
        # Under the series' lock; the unique constraint is the second guard (get_or_create reads it back).
        _membership, created = EventSeriesMember.objects.get_or_create(series=series, user=user)
        if not created:
            return SeriesJoin(already=True)
        skipped = set(EventSeriesSkip.objects.filter(user=user, event_id__in=dates).values_list("event_id", flat=True))
        outcomes = [_date_sign_up(event_id=event_id, user=user) for event_id in dates if event_id not in skipped]
        return SeriesJoin(places=outcomes.count("place"), waiting=outcomes.count("waiting"))


def series_leave(*, user: User, series_id: int, now: datetime.datetime | None = None) -> int | None:
    """ "Ik stop met deze reeks": no longer a series member, and off every coming date of the series (its place
    or waitlist spot; a freed place goes to that date's waitlist). Returns how many dates they left; None when
    they were no series member and on no coming date (leaving twice is not an error). Past dates keep their
    lists: that is the record of who was there."""
    now = now or timezone.now()
    with transaction.atomic():
        pages_changed(EVENTS)
        series = _lock_series(series_id)
        was_member, _ = EventSeriesMember.objects.filter(series=series, user=user).delete()
        EventSeriesSkip.objects.filter(user=user, event__series=series).delete()
        dates = _coming_dates(series.pk, now=now)
        on = set(
            EventParticipant.objects.filter(user=user, event_id__in=dates).values_list("event_id", flat=True)
        ) | set(EventWaitlistEntry.objects.filter(user=user, event_id__in=dates).values_list("event_id", flat=True))
        left = 0
        for event_id in dates:  # date order: the locks are taken as everywhere else
            if event_id in on and event_leave(user=user, event_id=event_id) is not None:
                left += 1
        return left if was_member or left else None


def series_dates_fill(*, event_id: int) -> int:
    """A date added to a series later (the Django admin): every series member who did not skip it gets a place
    or a waitlist spot, in the order they joined the series. Returns how many were signed up."""
    with transaction.atomic():
        series_id = Event.objects.filter(pk=event_id).values_list("series_id", flat=True).first()
        if series_id is None:
            return 0
        pages_changed(EVENTS)
        skipping = EventSeriesSkip.objects.filter(event_id=event_id).values("user_id")
        members = (
            EventSeriesMember.objects.filter(series_id=series_id, user__is_active=True)
            .exclude(user_id__in=skipping)
            .select_related("user")
            .order_by("created_at", "pk")
        )
        return sum(1 for member in members if _date_sign_up(event_id=event_id, user=member.user) is not None)
