"""The plan list: club events and members' plonsafspraken together, soonest first ("Wie gaat er plonsen?" on
/samen and the dashboard). Each row says when, where, who goes, and offers one tap to go along.

A weekly series is one row: its next date (the first one not afgelast), "elke week", and its upcoming dates
(an afgelast one struck through, with its reason). An afgelast event that is not in a series stays in the
list too, struck through, until its time.

A fixed number of queries whatever the club's size: the events of the page (one query, counts and the member's
place computed by the database), their names (one), the dates of their series (one), the afspraken and who
goes along (two).
"""

import datetime
import functools
import hashlib
from dataclasses import dataclass, field

from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Now
from django.urls import reverse
from django.utils import timezone

from apps.core.page_cache import PAGE_TIMEOUT
from apps.core.prepared import PreparedQuery
from apps.events.models import Event
from apps.events.selectors import (
    CARD_COLUMNS,
    EVENT_COLUMNS,
    EventCard,
    annotated_events_at_database_clock,
    cards_with_names,
    events_from_rows,
)

from .selectors import MeetupCard, upcoming_meetups
from .services import MEETUP_SHOWN_AFTER

PLANS_PER_PAGE = 20
# The furthest page a query string may ask for: each page reads the rows of the pages before it.
MAX_PAGE = 10
DASHBOARD_PLAN_LIMIT = 3

EVENT = "event"
MEETUP = "meetup"


@dataclass(frozen=True)
class SeriesDate:
    """One upcoming date of a weekly series, as listed under its row."""

    event_id: int
    starts_at: datetime.datetime
    cancelled: bool
    reason: str


@dataclass(frozen=True)
class PlanRow:
    kind: str  # EVENT or MEETUP
    starts_at: datetime.datetime
    event: EventCard | None = None
    meetup: MeetupCard | None = None
    series_dates: tuple[SeriesDate, ...] = ()
    meetup_url: str = ""  # the afspraak's own page, where there is one
    version: str = field(default="", compare=False)  # a digest of all the row shows: its cached section's key

    @property
    def anchor(self) -> str:
        """The row's id on the page (the old /events#event-<id> links land on it)."""
        if self.event is not None:
            return f"event-{self.event.event.pk}"
        assert self.meetup is not None
        return f"afspraak-{self.meetup.meetup.pk}"

    @property
    def is_series(self) -> bool:
        return self.event is not None and self.event.event.series_id is not None

    @property
    def is_cancelled(self) -> bool:
        return self.event is not None and self.event.event.is_cancelled


@dataclass(frozen=True)
class PlanList:
    rows: list[PlanRow]
    number: int  # the page, 1 first
    has_next: bool
    valid_for: float  # seconds until the list changes by the clock (a plan starts, an offer runs out)

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def page_number(asked: str | None) -> int:
    """ "?pagina=": anything that is not a page is the first, and a page beyond MAX_PAGE the last one."""
    if not asked or not asked.isascii() or not asked.isdigit() or len(asked) > 3:
        return 1
    return min(max(int(asked), 1), MAX_PAGE)


def _listed_events_query(user_id: int, *, limit: int):
    """The page's events, a series folded into its next date, by the database's clock."""
    listed = Q(is_active=True) | Q(cancelled_at__isnull=False)
    # A series shows as its first upcoming date that is not afgelast (all afgelast: the first of those).
    first_of_series = (
        Event.objects.filter(listed, series_id=OuterRef("series_id"), event_date__gte=Now())
        .order_by("-is_active", "event_date", "pk")
        .values("pk")[:1]
    )
    return (
        annotated_events_at_database_clock(user_id)
        .filter(listed, event_date__gte=Now())
        .annotate(series_row=Subquery(first_of_series))
        # A date of a series with the member's open offer is a row of its own: Ik kom / Ik kan niet in the list.
        .filter(Q(series__isnull=True) | Q(pk=F("series_row")) | Q(my_offer_expires_at__isnull=False))
        .order_by("event_date", "pk")
        .values_list(*EVENT_COLUMNS, *CARD_COLUMNS)[:limit]
    )


@functools.lru_cache(maxsize=64)
def _prepared_listed_events(limit: int) -> PreparedQuery:
    """One compiled query per length (a LIMIT is part of the SQL): the pages of /samen and the dashboard's block."""
    return PreparedQuery(lambda user_id: _listed_events_query(user_id, limit=limit), user_id=int)


def _listed_events(user, *, limit: int) -> list[Event]:
    """The page's events with their cards' counts and the member's place: one query, compiled once."""
    return events_from_rows(_prepared_listed_events(limit).rows(user_id=user.pk))


def _series_dates(series_ids: set[int], *, now: datetime.datetime) -> dict[int, list[SeriesDate]]:
    """The upcoming dates of these series, afgelast ones included: one query."""
    if not series_ids:
        return {}
    rows = (
        Event.objects.filter(Q(is_active=True) | Q(cancelled_at__isnull=False))
        .filter(series_id__in=series_ids, event_date__gte=now)
        .order_by("event_date", "pk")
        .values_list("series_id", "pk", "event_date", "cancelled_at", "cancel_reason")
    )
    dates: dict[int, list[SeriesDate]] = {}
    for series_id, pk, starts_at, cancelled_at, reason in rows:
        dates.setdefault(series_id, []).append(SeriesDate(pk, starts_at, cancelled_at is not None, reason))
    return dates


def digest(*values) -> str:
    """A short digest of what a section shows: its key's version (a write that changes any of it, a new key)."""
    return hashlib.blake2b(repr(values).encode(), digest_size=12).hexdigest()


def _event_version(card: EventCard, dates: tuple[SeriesDate, ...]) -> str:
    event = card.event
    return digest(
        EVENT,
        event.pk,
        event.title,
        event.event_date,
        event.location,
        event.description,
        event.max_participants,
        event.cancelled_at,
        event.cancel_reason,
        event.series_id,
        card.participant_count,
        card.guest_count,
        card.joined,
        card.waitlist_position,
        card.offers_held,
        card.offer_expires_at,
        card.names,
        dates,
    )


def _meetup_version(card: MeetupCard, url: str) -> str:
    meetup = card.meetup
    return digest(
        MEETUP,
        meetup.pk,
        meetup.starts_at,
        meetup.place,
        meetup.note,
        tuple(card.going),
        card.joined,
        card.is_proposer,
        card.started,
        url,
    )


def _event_row(card: EventCard, dates: list[SeriesDate]) -> PlanRow:
    listed = tuple(dates) if card.event.series_id is not None else ()
    return PlanRow(
        kind=EVENT,
        starts_at=card.event.event_date,
        event=card,
        series_dates=listed,
        version=_event_version(card, listed),
    )


def _meetup_row(card: MeetupCard) -> PlanRow:
    url = reverse("meetup", args=[card.meetup.pk])
    return PlanRow(
        kind=MEETUP, starts_at=card.meetup.starts_at, meetup=card, meetup_url=url, version=_meetup_version(card, url)
    )


def _valid_for(events: list, series: dict[int, list[SeriesDate]], meetups: list[MeetupCard], now) -> float:
    """Until the first listed event (or listed date of a series) starts, an open offer runs out, or an afspraak
    starts or leaves the list."""
    moments = [event.event_date for event in events]
    moments += [date.starts_at for dates in series.values() for date in dates]
    moments += [event.next_offer_end for event in events if event.next_offer_end]
    moments += [
        card.meetup.starts_at + MEETUP_SHOWN_AFTER if card.started else card.meetup.starts_at for card in meetups
    ]
    if not moments:
        return PAGE_TIMEOUT
    return min(max(min((moment - now).total_seconds() for moment in moments), 0), PAGE_TIMEOUT)


def plan_list(
    user, *, number: int = 1, per_page: int = PLANS_PER_PAGE, now: datetime.datetime | None = None
) -> PlanList:
    """Page `number` of the merged list, soonest first. Five queries at most, whatever the number of plans."""
    now = now or timezone.now()
    reach = number * per_page + 1  # the rows of this page and those before it, and one to know there is more
    events = _listed_events(user, limit=reach)
    series = _series_dates({event.series_id for event in events if event.series_id is not None}, now=now)
    meetups = upcoming_meetups(user, limit=reach, now=now)
    merged = sorted(
        [(event.event_date, 0, event.pk, event) for event in events]
        + [(card.meetup.starts_at, 1, card.meetup.pk, card) for card in meetups],
        key=lambda item: item[:3],
    )
    if number > 1 and len(merged) <= (number - 1) * per_page:  # past the end: the last page there is
        number = max((len(merged) + per_page - 1) // per_page, 1)
    shown = merged[(number - 1) * per_page : number * per_page]
    shown_events = [item[3] for item in shown if item[1] == 0]
    event_cards = {card.event.pk: card for card in cards_with_names(shown_events)} if shown_events else {}
    rows = [
        _event_row(event_cards[item[2]], series.get(item[3].series_id, [])) if item[1] == 0 else _meetup_row(item[3])
        for item in shown
    ]
    return PlanList(
        rows=rows,
        number=number,
        has_next=len(merged) > number * per_page,
        valid_for=_valid_for(events, series, meetups, now),
    )


def next_plans(user, *, limit: int = DASHBOARD_PLAN_LIMIT) -> PlanList:
    """The dashboard's block: the first few rows of the list."""
    return plan_list(user, number=1, per_page=limit)
