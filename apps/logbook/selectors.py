"""Mijn statistieken: one member's whole history in four queries, whatever its length.

The rhythm is counted in weeks, never in days: a daily streak pushes people into the water on days
they should stay out. And nothing here ranks or rewards a longer time in the water.
"""

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db.models import Count, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.challenges.models import Dip, DipBuddy, UserBadge, UserChallenge
from apps.core.prepared import PreparedQuery

RECENT_WEEKS = 26
SEASON_START_MONTH = 9  # a season runs from 1 September to 31 August


def season_start(today: datetime.date) -> datetime.date:
    year = today.year if today.month >= SEASON_START_MONTH else today.year - 1
    return datetime.date(year, SEASON_START_MONTH, 1)


def week_start(day: datetime.date) -> datetime.date:
    """The Monday of the day's week."""
    return day - datetime.timedelta(days=day.weekday())


class DayLog(NamedTuple):  # a row per day with dips: a plain tuple, made for each of them per render
    day: datetime.date
    dips: int
    temperature_sum: Decimal  # over the dips with a temperature
    temperature_count: int


@dataclass(frozen=True)
class ColdestDip:
    water_temperature: Decimal
    dip_date: datetime.date
    spot: str


@dataclass(frozen=True)
class MonthTemperature:
    month: datetime.date  # the 1st of the month
    average: Decimal
    dips: int


@dataclass(frozen=True)
class WeekCount:
    start: datetime.date
    dips: int


@dataclass(frozen=True)
class WeekTemperature:
    start: datetime.date
    average: Decimal | None


@dataclass
class Statistics:
    """Her figures; the derived ones (weeks, runs, months) are read more than once per page: each made once."""

    today: datetime.date
    season_start: datetime.date
    total_dips: int
    season_dips: int
    total_seconds: int
    badges_earned: int
    challenges_completed: int
    coldest: ColdestDip | None
    days: list[DayLog] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return self.total_dips == 0

    @cached_property
    def dip_days(self) -> set[datetime.date]:
        return {log.day for log in self.days}

    @cached_property
    def month_temperatures(self) -> list[MonthTemperature]:
        """The average water temperature per calendar month with a logged temperature, newest first."""
        sums: dict[datetime.date, tuple[Decimal, int]] = {}
        for log in self.days:
            if log.temperature_count:
                month = log.day.replace(day=1)
                total, count = sums.get(month, (Decimal(0), 0))
                sums[month] = (total + log.temperature_sum, count + log.temperature_count)
        return [
            MonthTemperature(month=month, average=_average(total, count), dips=count)
            for month, (total, count) in sorted(sums.items(), reverse=True)
        ]

    @cached_property
    def weeks_with_dips(self) -> set[datetime.date]:
        return {week_start(log.day) for log in self.days}

    @cached_property
    def current_week_run(self) -> int:
        """Weeks in a row with at least one dip, up to now. This week counts once it has a dip; until
        then the run of the weeks before still stands (the week is not over)."""
        weeks = self.weeks_with_dips
        week = week_start(self.today)
        if week not in weeks:
            week -= datetime.timedelta(weeks=1)
        run = 0
        while week in weeks:
            run += 1
            week -= datetime.timedelta(weeks=1)
        return run

    @cached_property
    def best_week_run(self) -> int:
        best = run = 0
        previous = None
        for week in sorted(self.weeks_with_dips):
            run = run + 1 if previous is not None and week - previous == datetime.timedelta(weeks=1) else 1
            best = max(best, run)
            previous = week
        return best

    @cached_property
    def recent_weeks(self) -> list[WeekCount]:
        """Dips per week over the last RECENT_WEEKS weeks, this week last."""
        counts: dict[datetime.date, int] = {}
        for log in self.days:
            week = week_start(log.day)
            counts[week] = counts.get(week, 0) + log.dips
        this_week = week_start(self.today)
        starts = [this_week - datetime.timedelta(weeks=n) for n in range(RECENT_WEEKS - 1, -1, -1)]
        return [WeekCount(start=start, dips=counts.get(start, 0)) for start in starts]

    @cached_property
    def season_weeks(self) -> list[WeekTemperature]:
        """The average water temperature per week of this season so far (None: no temperature logged)."""
        sums: dict[datetime.date, tuple[Decimal, int]] = {}
        for log in self.days:
            if log.day >= self.season_start and log.temperature_count:
                week = week_start(log.day)
                total, count = sums.get(week, (Decimal(0), 0))
                sums[week] = (total + log.temperature_sum, count + log.temperature_count)
        weeks = []
        week = week_start(self.season_start)
        while week <= self.today:
            total, count = sums.get(week, (Decimal(0), 0))
            weeks.append(WeekTemperature(start=week, average=_average(total, count) if count else None))
            week += datetime.timedelta(weeks=1)
        return weeks


def _average(total: Decimal, count: int) -> Decimal:
    return (total / count).quantize(Decimal("0.1"))


def _counted(queryset, value):
    """One figure of the member's rows as a column (0 rows: NULL)."""
    return Subquery(queryset.order_by().values("user_id").annotate(value=value).values("value")[:1])


def _coldest(user_id: int, field: str):
    """One field of her coldest dip as a column (no dip with a temperature: NULL)."""
    return Subquery(
        Dip.objects.filter(user_id=user_id, water_temperature__isnull=False)
        .order_by("water_temperature", "dip_date", "pk")
        .values(field)[:1]
    )


def _summary(user_id: int, season_start: datetime.date):
    dips = Dip.objects.filter(user_id=user_id)
    return (
        get_user_model()
        .objects.filter(pk=user_id)
        .order_by()
        .values_list(
            Coalesce(_counted(dips, Count("pk")), 0),
            Coalesce(_counted(dips.filter(dip_date__gte=season_start), Count("pk")), 0),
            Coalesce(_counted(dips, Sum("duration_seconds")), 0),
            Coalesce(_counted(UserBadge.objects.filter(user_id=user_id), Count("pk")), 0),
            Coalesce(
                _counted(UserChallenge.objects.filter(user_id=user_id, completed_at__isnull=False), Count("pk")), 0
            ),
            _coldest(user_id, "water_temperature"),
            _coldest(user_id, "dip_date"),
            _coldest(user_id, "spot"),
        )
    )


def _days(user_id: int):
    # One row per day with dips: at most one per calendar day, so bounded by the days, not the dips.
    return (
        Dip.objects.filter(user_id=user_id)
        .order_by()
        .values("dip_date")
        .annotate(n=Count("pk"), t_sum=Sum("water_temperature"), t_n=Count("water_temperature"))
        .order_by("dip_date")
        .values_list("dip_date", "n", "t_sum", "t_n")
    )


# Compiled once: the page is rendered again after each of her dips.
_SUMMARY = PreparedQuery(_summary, user_id=int, season_start=datetime.date)


def statistics_for(user, *, today: datetime.date | None = None) -> Statistics:
    today = today or timezone.localdate()
    start = season_start(today)
    total, season, seconds, badges, completed, *coldest = _SUMMARY.rows(user_id=user.pk, season_start=start)[0]
    return Statistics(
        today=today,
        season_start=start,
        total_dips=total,
        season_dips=season,
        total_seconds=seconds,
        badges_earned=badges,
        challenges_completed=completed,
        coldest=ColdestDip(*coldest) if coldest[0] is not None else None,
        days=[
            DayLog(day=day, dips=dips, temperature_sum=t_sum or Decimal(0), temperature_count=t_n)
            for day, dips, t_sum, t_n in _days(user.pk)
        ],
    )


@dataclass(frozen=True)
class SwumWith:
    name: str
    days: int


def swum_with(user) -> list[SwumWith]:
    """ "Samen met": per clubmate, on how many days the member and they dipped together: the member named
    them (and they did not say "Klopt niet"), or they named the member and the member put it on their card.
    By name, never ranked. Two queries."""
    days: dict[int, set[datetime.date]] = {}
    names: dict[int, str] = {}
    named = (
        DipBuddy.objects.filter(dip__user_id=user.pk)
        .exclude(status=DipBuddy.Status.DECLINED)
        .values_list("buddy_id", "buddy__full_name", "dip__dip_date")
    )
    named_me = DipBuddy.objects.filter(buddy_id=user.pk, status=DipBuddy.Status.ACCEPTED).values_list(
        "dip__user_id", "dip__user__full_name", "dip__dip_date"
    )
    for clubmate, name, day in [*named, *named_me]:
        days.setdefault(clubmate, set()).add(day)
        names[clubmate] = name.strip() or "Zwemmer"
    rows = [SwumWith(name=names[clubmate], days=len(dates)) for clubmate, dates in days.items()]
    return sorted(rows, key=lambda row: row.name.lower())
