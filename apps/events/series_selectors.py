"""Reads that fold a weekly series into one thing: one row per series in /admin/events (the member's plan list
folds them in apps.together.plans), its label ("Elke zondag tot 28 februari"), and the member's "Ik kom elke
week" on a date's page.

A series row stands for its dates: the next one that goes ahead leads (the first when every coming date is
afgelast), and the dates themselves (afgelast ones struck through with their reason) open below it. Each list
costs a fixed number of queries whatever the number of series and dates.
"""

import datetime
from dataclasses import dataclass

from django.core.paginator import Page as PaginatorPage
from django.core.paginator import Paginator
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone, translation

from apps.core.formatting import month_names
from apps.core.page_cache import PAGE_TIMEOUT

from .models import Event, EventParticipant, EventSeries, EventSeriesMember, EventWaitlistEntry
from .selectors import _count

DAY_NAMES = ("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag")
# Events (a series counts once) per page of /admin/events.
ORGANISER_EVENTS_PER_PAGE = 25


def series_label(*, first: datetime.datetime, until: datetime.date) -> str:
    """ "Elke zondag tot 28 februari": the weekday of its dates (Amsterdam time) and the last day."""
    months = month_names(translation.get_language())
    return f"Elke {DAY_NAMES[timezone.localtime(first).weekday()]} tot {until.day} {months[until.month]}"


def _shown() -> Q:
    """On the lists: active, or afgelast (struck through); not an event taken off otherwise."""
    return Q(is_active=True) | Q(cancelled_at__isnull=False)


def _leading(events: QuerySet, *, within: Q, latest_first: bool = False) -> QuerySet:
    """Of `events` (filtered by `within`), the ones that stand for themselves: an event without a series, and
    for a series only its first date within (its last with `latest_first`)."""
    order = ("-event_date", "-pk") if latest_first else ("event_date", "pk")
    first = Event.objects.filter(within, series_id=OuterRef("series_id")).order_by(*order)
    return (
        events.filter(within)
        .annotate(series_lead=Subquery(first.values("pk")[:1]))
        .filter(Q(series_id__isnull=True) | Q(pk=F("series_lead")))
    )


@dataclass(frozen=True)
class SeriesState:
    """A date's series on its page: the label, the coming dates that go ahead and "Ik kom elke week"."""

    series_id: int
    label: str
    coming: int
    member: bool


def series_state_for(user, *, event: Event) -> SeriesState | None:
    """For the event page of a date of a series (None for an event on its own). One query."""
    if event.series_id is None:
        return None
    now = timezone.now()
    coming = Event.objects.filter(series_id=OuterRef("pk"), is_active=True, event_date__gte=now)
    series = (
        EventSeries.objects.filter(pk=event.series_id)
        .annotate(
            member=Exists(EventSeriesMember.objects.filter(series_id=OuterRef("pk"), user=user)),
            coming=_count_of(coming),
        )
        .first()
    )
    if series is None:
        return None
    return SeriesState(
        series_id=series.pk,
        label=series_label(first=event.event_date, until=series.repeat_until),
        coming=series.coming,
        member=series.member,
    )


def _count_of(rows: QuerySet):
    counted = rows.order_by().values("series_id").annotate(total=Count("pk")).values("total")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


# --- /admin/events ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrganiserEventRow:
    event: Event
    participant_count: int
    waitlist_count: int
    joined: bool = False  # the organiser is on the list themselves
    dates: tuple["OrganiserEventRow", ...] = ()  # a series: every date of it in this list (coming or past)
    series_label: str = ""

    @property
    def date_count(self) -> int:
        return len(self.dates)


@dataclass(frozen=True)
class OrganiserEventsPage:
    rows: list[OrganiserEventRow]
    page: PaginatorPage
    valid_for: float


def _organiser_row(event: Event) -> OrganiserEventRow:
    return OrganiserEventRow(
        event=event,
        participant_count=event.participant_total,  # type: ignore[attr-defined]
        waitlist_count=event.waitlist_total,  # type: ignore[attr-defined]
        joined=event.joined_by_user,  # type: ignore[attr-defined]
    )


def organiser_events_page(user, *, past: bool, number: str | int | None) -> OrganiserEventsPage:
    """/admin/events: the coming events (earliest first) or the past ones (latest first), afgelast ones
    included, with their counts; a series is one row led by its next date (the latest on the past list), its
    dates below it. One count, one query per page and one for the series' dates, whatever their number."""
    now = timezone.now()
    events = Event.objects.annotate(
        participant_total=_count(EventParticipant),
        waitlist_total=_count(EventWaitlistEntry),
        joined_by_user=Exists(EventParticipant.objects.filter(event=OuterRef("pk"), user=user)),
    )
    order = ("-event_date", "-pk") if past else ("event_date", "pk")
    within = Q(event_date__lt=now) if past else Q(event_date__gte=now)
    period = events.filter(within)
    leading = _leading(events, within=within, latest_first=past).select_related("series").order_by(*order)
    page = Paginator(leading, ORGANISER_EVENTS_PER_PAGE).get_page(number)
    heads = list(page.object_list)
    series_ids = [event.series_id for event in heads if event.series_id is not None]
    dates: dict[int, list[OrganiserEventRow]] = {}
    if series_ids:
        for event in period.filter(series_id__in=series_ids).order_by(*order):
            dates.setdefault(event.series_id, []).append(_organiser_row(event))  # type: ignore[arg-type]
    rows = []
    for event in heads:
        series_dates = dates.get(event.series_id, []) if event.series_id is not None else []
        if not series_dates:
            rows.append(_organiser_row(event))
            continue
        lead = next((row for row in series_dates if not row.event.is_cancelled), series_dates[0])
        label = series_label(first=event.event_date, until=event.series.repeat_until)
        rows.append(
            OrganiserEventRow(
                event=lead.event,
                participant_count=lead.participant_count,
                waitlist_count=lead.waitlist_count,
                joined=lead.joined,
                dates=tuple(series_dates),
                series_label=label,
            )
        )
    # The coming list changes when its first event starts (it moves to the past).
    first = Event.objects.filter(event_date__gte=now).order_by("event_date").values_list("event_date", flat=True)
    starts = first.first()
    valid_for = min((starts - now).total_seconds(), PAGE_TIMEOUT) if starts is not None else PAGE_TIMEOUT
    return OrganiserEventsPage(rows=rows, page=page, valid_for=valid_for)
