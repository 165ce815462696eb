"""The charts of Mijn statistieken: two from apps/charts, and the year calendar of dip days, drawn here
the same accessible way (an `<svg role="img">` with a title and a description, and its numbers as a
table that only screen readers see)."""

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from apps.charts.svg import Chart, Point, bar_chart, format_value, line_chart
from apps.core.formatting import dutch_date, dutch_dates

from .selectors import Statistics

MONTH_SHORT = ["jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"]
CALENDAR_MONTHS = 12
CELL = 11
GAP = 2
CALENDAR_LEFT = 36
CALENDAR_TOP = 14


# The x of each day of the month's square, and whether it is a dip day's: the same for every render.
DAY_X = [CALENDAR_LEFT + day * (CELL + GAP) for day in range(31)]
DAY_CLASS = {False: "logbook-day", True: "logbook-day logbook-day--dip"}


@dataclass(frozen=True)
class Calendar:
    title: str
    description: str
    days: list[tuple[int, int, bool]]  # (x, y, dipped): a square per day, in the order of the days
    month_labels: list[tuple[int, str]]  # (y, "jan"): a label per row
    day_labels: list[tuple[int, str]]  # (x, "10"): a few days of the month over the columns
    rows: list[tuple[str, int]]  # per month: ("november 2026", dip days)
    width: int
    height: int
    dom_id: str = "chart-jaarkalender"

    @property
    def day_cells(self) -> SafeString:
        """The year's day squares as SVG, made here in one go: a template loop over 365 days was most of the
        page's rendering (issue 37). Only whole numbers and fixed words go in, nothing to escape."""
        return mark_safe(  # noqa: S308 - integers and constant class names only
            "".join(
                f'<rect class="{DAY_CLASS[dipped]}" x="{x:d}" y="{y:d}" width="{CELL}" height="{CELL}" rx="2"/>'
                for x, y, dipped in self.days
            )
        )

    @property
    def labels(self) -> SafeString:
        """The months down the side and a few days over the top, made in one go as the squares are."""
        months = (f'<text class="chart-axis" x="0" y="{int(y)}">{escape(text)}</text>' for y, text in self.month_labels)
        days = (
            f'<text class="chart-axis" x="{int(x)}" y="10" text-anchor="middle">{escape(text)}</text>'
            for x, text in self.day_labels
        )
        return mark_safe("".join((*months, *days)))  # noqa: S308 - numbers, and texts escaped

    @property
    def table_rows(self) -> SafeString:
        """The screen readers' table: dip days per month."""
        return mark_safe(  # noqa: S308 - the month's name escaped, the rest numbers and fixed words
            "".join(
                f'<tr><th scope="row">{escape(month)}</th><td>{int(count)} {"dag" if count == 1 else "dagen"}</td></tr>'
                for month, count in self.rows
            )
        )


@dataclass(frozen=True)
class StatisticsCharts:
    weeks: Chart
    season: Chart
    calendar: Calendar


def month_name(first_of_month: datetime.date) -> str:
    """ "november 2026"."""
    return dutch_date(first_of_month).split(" ", 1)[1]


def _week_points(starts: list[datetime.date], values: Sequence[float | None]) -> list[Point]:
    """A point per week: its number under the axis, "week 47 (16 november 2026)" in the table."""
    date = dutch_dates()
    points = []
    for start, value in zip(starts, values, strict=True):
        week = str(start.isocalendar().week)
        points.append(Point(label=week, value=value, caption=f"week {week} ({date(start)})"))
    return points


def statistics_charts(stats: Statistics) -> StatisticsCharts:
    weeks = stats.recent_weeks
    weeks_with_dips = sum(1 for week in weeks if week.dips)
    weeks_chart = bar_chart(
        title="Plonsen per week, laatste 26 weken",
        description=(
            f"Staafdiagram: in {weeks_with_dips} van de laatste {len(weeks)} weken plonsde je, "
            f"samen {sum(week.dips for week in weeks)} keer."
        ),
        points=_week_points([week.start for week in weeks], [week.dips for week in weeks]),
        unit="plonsen",
        dom_id="chart-plonsen-per-week",
    )
    season = stats.season_weeks
    logged = [week.average for week in season if week.average is not None]
    season_chart = line_chart(
        title=f"Watertemperatuur dit seizoen (vanaf {dutch_date(stats.season_start)})",
        description=(
            f"Lijndiagram van de gemiddelde watertemperatuur per week: {len(logged)} weken met een gemeten "
            f"temperatuur, van {format_value(float(min(logged)), decimals=1)} "
            f"tot {format_value(float(max(logged)), decimals=1, unit='°C')}."
            if logged
            else "Lijndiagram van de gemiddelde watertemperatuur per week: nog geen temperaturen gemeten dit seizoen."
        ),
        points=_week_points(
            [week.start for week in season],
            [float(week.average) if week.average is not None else None for week in season],
        ),
        unit="°C",
        decimals=1,
        dom_id="chart-seizoen-temperatuur",
    )
    return StatisticsCharts(weeks=weeks_chart, season=season_chart, calendar=year_calendar(stats))


def year_calendar(stats: Statistics) -> Calendar:
    """The last twelve months as a grid: a row per month, a column per day of the month, dip days filled.
    Twelve rows of 31 fit a phone's width; a week-per-column calendar would be too small to read there."""
    # By day numbers (ordinals): a date object per day of the year was most of the calendar's cost.
    dipped = {day.toordinal() for day in stats.dip_days}
    today = stats.today.toordinal()
    # This month and the eleven before it.
    months_back = stats.today.year * 12 + stats.today.month - 1 - (CALENDAR_MONTHS - 1)
    month = datetime.date(months_back // 12, months_back % 12 + 1, 1)
    days: list[tuple[int, int, bool]] = []
    month_labels, rows = [], []
    for row in range(CALENDAR_MONTHS):
        y = CALENDAR_TOP + row * (CELL + GAP)
        month_labels.append((y + CELL - 2, MONTH_SHORT[month.month - 1]))
        next_month = _next_month(month)
        first = month.toordinal()
        shown = [
            (DAY_X[number], y, first + number in dipped)
            for number in range(min(next_month.toordinal(), today + 1) - first)
        ]
        days.extend(shown)
        rows.append((month_name(month), sum(1 for _x, _y, dip in shown if dip)))
        month = next_month
    total = sum(count for _name, count in rows)
    return Calendar(
        title="Jaarkalender van je plonsdagen",
        description=(
            f"Een rij per maand van de laatste {CALENDAR_MONTHS} maanden, een vakje per dag; "
            f"gekleurde vakjes zijn dagen waarop je plonsde: {total} dagen."
        ),
        days=days,
        month_labels=month_labels,
        day_labels=[(CALENDAR_LEFT + (day - 1) * (CELL + GAP) + CELL // 2, str(day)) for day in (1, 10, 20, 31)],
        rows=rows,
        width=CALENDAR_LEFT + 31 * (CELL + GAP),
        height=CALENDAR_TOP + CALENDAR_MONTHS * (CELL + GAP),
    )


def _next_month(first: datetime.date) -> datetime.date:
    return (first + datetime.timedelta(days=32)).replace(day=1)
