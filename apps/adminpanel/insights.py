"""The admin screen's charts: each from one aggregate query, whatever the club's size.

The database counts per week or month; the empty weeks and months are filled in here, so a quiet week
is a zero in the chart rather than a missing bar.
"""

import datetime
from dataclasses import dataclass

from django.db.models import Count, OuterRef, Subquery, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Badge, BadgeTally, DipWeekTally
from apps.charts.svg import Chart, Point, bar_chart, line_chart
from apps.core.formatting import dutch_date, month_names
from apps.core.page_cache import CLUB
from apps.core.page_versions import remembered, shared_versions

from .selectors import AdminStats, admin_stats

WEEKS = 26
MONTHS = 12


@dataclass(frozen=True)
class Insights:
    dips_per_week: Chart
    active_members_per_week: Chart
    new_members_per_month: Chart
    badges_per_milestone: Chart

    @property
    def charts(self) -> list[Chart]:
        return [self.dips_per_week, self.active_members_per_week, self.new_members_per_month, self.badges_per_milestone]


def week_start(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


def month_start(day: datetime.date, months_back: int = 0) -> datetime.date:
    index = day.year * 12 + day.month - 1 - months_back
    return datetime.date(index // 12, index % 12 + 1, 1)


# A safety net only: every service that changes a figure moves the club's version (pages_changed(CLUB)).
CLUB_FIGURES_SECONDS = 5 * 60


def club_figures(*, today: datetime.date | None = None) -> tuple[AdminStats, Insights]:
    """The totals and charts of /admin, counted once per version of the club's data (and day): counting
    every dip of a big club costs more than anything else on the page."""
    today = today or timezone.localdate()
    return remembered(
        ("club-figures", today, *shared_versions(CLUB)),
        lambda: (admin_stats(today=today), admin_insights(today=today)),
        seconds=CLUB_FIGURES_SECONDS,
    )


def admin_insights(*, today: datetime.date | None = None) -> Insights:
    today = today or timezone.localdate()
    weeks = [week_start(today) - datetime.timedelta(weeks=n) for n in range(WEEKS - 1, -1, -1)]
    # Dips and active members per week: the last 26 rows of the weekly tallies the database keeps.
    tallies = DipWeekTally.objects.filter(week__gte=weeks[0]).values_list("week", "dips", "members")
    per_week: dict[datetime.date, dict[str, int]] = {
        week: {"dips": dips, "members": members} for week, dips, members in tallies
    }
    months = [month_start(today, n) for n in range(MONTHS - 1, -1, -1)]
    since = timezone.make_aware(datetime.datetime.combine(months[0], datetime.time.min))
    per_month = {
        _as_date(row["month"]): row["n"]
        for row in User.objects.filter(created_at__gte=since)
        .annotate(month=TruncMonth("created_at"))
        .values("month")
        .annotate(n=Count("pk"))
        .order_by()
    }
    # The badges' tallies (per badge and physical status), summed per milestone: a few rows, not every award.
    milestone = Subquery(Badge.objects.filter(pk=OuterRef("badge_id")).values("milestone_dips"))
    per_milestone = list(
        BadgeTally.objects.filter(awards__gt=0)
        .annotate(milestone=milestone)
        .filter(milestone__isnull=False)
        .values("milestone")
        .annotate(n=Sum("awards"))
        .order_by("milestone")
        .values_list("milestone", "n")
    )
    week_points = [(week, per_week.get(week, {"dips": 0, "members": 0})) for week in weeks]
    return Insights(
        dips_per_week=bar_chart(
            title="Plonsen per week",
            description=f"Het aantal geregistreerde plonsen in elk van de laatste {WEEKS} weken.",
            points=[_week_point(week, row.get("dips", 0)) for week, row in week_points],
            unit="plonsen",
            dom_id="chart-dips-per-week",
        ),
        active_members_per_week=line_chart(
            title="Actieve leden per week",
            description=f"Leden met minstens één plons in die week, over de laatste {WEEKS} weken.",
            points=[_week_point(week, row.get("members", 0)) for week, row in week_points],
            unit="leden",
            dom_id="chart-active-members",
        ),
        new_members_per_month=bar_chart(
            title="Nieuwe leden per maand",
            description=f"Het aantal nieuwe leden in elk van de laatste {MONTHS} maanden.",
            points=[_month_point(month, per_month.get(month, 0)) for month in months],
            unit="leden",
            dom_id="chart-new-members",
        ),
        badges_per_milestone=bar_chart(
            title="Verdiende badges per mijlpaal",
            description="Hoeveel badges er bij elke mijlpaal (aantal plonsen) verdiend zijn, over alle challenges.",
            points=[Point(str(milestone), n, f"{milestone} plonsen") for milestone, n in per_milestone],
            unit="badges",
            dom_id="chart-badges-per-milestone",
        ),
    )


def _as_date(value) -> datetime.date:
    """TruncWeek/TruncMonth give a date for a date column and an aware datetime for a datetime column."""
    if isinstance(value, datetime.datetime):
        return timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return value


def _week_point(week: datetime.date, value: int) -> Point:
    number = week.isocalendar().week
    return Point(str(number), value, f"week {number} (vanaf {dutch_date(week)})")


def _month_point(month: datetime.date, value: int) -> Point:
    name = month_names("nl")[month.month]
    return Point(name[:3], value, f"{name} {month.year}")
