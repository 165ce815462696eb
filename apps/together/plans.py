"""The plan list: club events and members' plonsafspraken together, soonest first ("Wie gaat er plonsen?" on
/samen and the dashboard). Each row says when, where, who goes, and offers one tap to go along.

A weekly series is one row: its next date (the first one not afgelast), "elke week", and its upcoming dates
(an afgelast one struck through, with its reason). An afgelast event that is not in a series stays in the
list too, struck through, until its time.

A fixed number of queries whatever the club's size: the events of the page (one query, counts and the member's
place computed by the database), their names (one), the dates of their series (one), the afspraken and who
goes along (one).
"""

import datetime
import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Now
from django.urls import reverse
from django.utils import timezone

from apps.core.page_cache import EVENTS, MEMBER, PAGE_TIMEOUT
from apps.core.page_sections import kept_value
from apps.core.prepared import PreparedQuery
from apps.events.models import Event
from apps.events.selectors import (
    CARD_COLUMNS,
    EVENT_COLUMNS,
    EventCard,
    annotated_events_at_database_clock,
    card_from_row,
    full_names_on_cards,
)

from .selectors import MEETUP_COLUMN, MeetupCard, going_along, listed_meetup_rows, meetup_card_from_row
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


@dataclass(frozen=True, eq=False)
class PlanRow:
    """A row of the list. Its version comes from the rows the queries read; its card (`event` or `meetup`) is
    made only when the row is rendered: a row served from the cache needs its version only."""

    kind: str  # EVENT or MEETUP
    starts_at: datetime.datetime
    anchor: str  # the row's id on the page (the old /events#event-<id> links land on it)
    version: str  # a digest of all the row shows: its cached section's key
    make: Callable[[], EventCard | MeetupCard] = field(repr=False)
    series_dates: tuple[SeriesDate, ...] = ()
    is_series: bool = False
    is_cancelled: bool = False
    meetup_id: int | None = None

    @functools.cached_property
    def card(self) -> EventCard | MeetupCard:
        return self.make()

    @property
    def event(self) -> EventCard | None:
        return self.card if self.kind == EVENT else None  # type: ignore[return-value]

    @property
    def meetup(self) -> MeetupCard | None:
        return self.card if self.kind == MEETUP else None  # type: ignore[return-value]

    @functools.cached_property
    def meetup_url(self) -> str:
        """The afspraak's own page, where there is one."""
        return "" if self.meetup_id is None else reverse("meetup", args=[self.meetup_id])


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


def _listed_events(user, *, limit: int) -> list[tuple]:
    """The page's events with their cards' counts and the member's place, as rows of `EVENT_COLUMNS +
    CARD_COLUMNS`: one query, compiled once."""
    return _prepared_listed_events(limit).rows(user_id=user.pk)


# Where an event row holds what the list itself reads (the rest only its card and its version).
_COLUMN = {name: index for index, name in enumerate((*EVENT_COLUMNS, *CARD_COLUMNS))}
_ID, _DATE, _SERIES, _CANCELLED, _OFFER_END = (
    _COLUMN[name] for name in ("id", "event_date", "series_id", "cancelled_at", "next_offer_end")
)
_MEETUP_ID, _STARTS = MEETUP_COLUMN["id"], MEETUP_COLUMN["starts_at"]


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


@functools.lru_cache(maxsize=1)
def _meetup_url_shape() -> str:
    """An afspraak's link as this release makes it (in its rows' versions: a changed route renders them anew)."""
    return reverse("meetup", args=[0])


def _event_row(row: tuple, full_names: list[str], dates: list[SeriesDate]) -> PlanRow:
    """An event's row, its version from the query's own columns: everything its card shows (the event, its
    counts, her place, waitlist and offer) is among them, and the names are those of its card."""
    listed = tuple(dates) if row[_SERIES] is not None else ()
    names = tuple(full_names)
    return PlanRow(
        kind=EVENT,
        starts_at=row[_DATE],
        anchor=f"event-{row[_ID]}",
        version=digest(EVENT, row, names, listed),
        make=functools.partial(card_from_row, row, names),
        series_dates=listed,
        is_series=row[_SERIES] is not None,
        is_cancelled=row[_CANCELLED] is not None,
    )


def _meetup_row(row: tuple, going: list[tuple[int, str]], *, user_id: int, now: datetime.datetime) -> PlanRow:
    """An afspraak's row, its version from the afspraak's columns, who goes along and her part in it."""
    started = row[_STARTS] <= now
    return PlanRow(
        kind=MEETUP,
        starts_at=row[_STARTS],
        anchor=f"afspraak-{row[_MEETUP_ID]}",
        version=digest(MEETUP, row, tuple(going), user_id, started, _meetup_url_shape()),
        make=functools.partial(meetup_card_from_row, row, going, user_id=user_id, started=started),
        meetup_id=row[_MEETUP_ID],
    )


def _valid_for(events: list[tuple], series: dict[int, list[SeriesDate]], meetups: list[tuple], now) -> float:
    """Until the first listed event (or listed date of a series) starts, an open offer runs out, or an afspraak
    starts or leaves the list."""
    moments = [row[_DATE] for row in events]
    moments += [date.starts_at for dates in series.values() for date in dates]
    moments += [row[_OFFER_END] for row in events if row[_OFFER_END]]
    moments += [row[_STARTS] + MEETUP_SHOWN_AFTER if row[_STARTS] <= now else row[_STARTS] for row in meetups]
    if not moments:
        return PAGE_TIMEOUT
    return min(max(min((moment - now).total_seconds() for moment in moments), 0), PAGE_TIMEOUT)


@dataclass(frozen=True)
class ListedEvents:
    """The events part of a page of the list, as the member sees it: a value kept by the events' and her versions
    (`kept_value`), so a new afspraak does not read the events again."""

    rows: list[tuple]  # EVENT_COLUMNS + CARD_COLUMNS, soonest first
    series: dict[int, list[SeriesDate]]  # the upcoming dates of the series among them
    names: dict[int, list[str]]  # who goes on each event that can be on the page, in sign-up order

    def ends(self) -> datetime.datetime | None:
        """When the clock changes them: an event (or a date of a series) starts, an open offer runs out."""
        moments = [row[_DATE] for row in self.rows] + [row[_OFFER_END] for row in self.rows if row[_OFFER_END]]
        moments += [date.starts_at for dates in self.series.values() for date in dates]
        return min(moments, default=None)


def _read_listed_events(user, *, reach: int, now: datetime.datetime) -> ListedEvents:
    """Three queries: the events, the dates of their series, the names on those that can be on the page."""
    rows = _listed_events(user, limit=reach)
    series = _series_dates({row[_SERIES] for row in rows if row[_SERIES] is not None}, now=now)
    shown = [row[_ID] for row in rows[: reach - 1]]  # the last is only there to tell that there is more
    return ListedEvents(rows=rows, series=series, names=full_names_on_cards(shown) if shown else {})


def plan_list(
    user, *, number: int = 1, per_page: int = PLANS_PER_PAGE, now: datetime.datetime | None = None
) -> PlanList:
    """Page `number` of the merged list, soonest first. Four queries at most, whatever the number of plans; one
    (and a cache call) when only the afspraken changed since the page was last rendered."""
    now = now or timezone.now()
    reach = number * per_page + 1  # the rows of this page and those before it, and one to know there is more
    listed = kept_value(
        f"plan-events-{reach}",
        (MEMBER, EVENTS),
        lambda: _read_listed_events(user, reach=reach, now=now),
        until=ListedEvents.ends,
    )
    events, series = listed.rows, listed.series
    meetups, along = listed_meetup_rows(reach)
    merged = sorted(
        [(row[_DATE], 0, row[_ID], row) for row in events]
        + [(row[_STARTS], 1, row[_MEETUP_ID], row) for row in meetups],
        key=lambda item: item[:3],
    )
    if number > 1 and len(merged) <= (number - 1) * per_page:  # past the end: the last page there is
        number = max((len(merged) + per_page - 1) // per_page, 1)
    shown = merged[(number - 1) * per_page : number * per_page]
    rows = [
        _event_row(row, listed.names.get(row_id, []), series.get(row[_SERIES], []))
        if kind == 0
        else _meetup_row(row, going_along(row, along), user_id=user.pk, now=now)
        for _starts, kind, row_id, row in shown
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
