"""Charts drawn on the server as accessible inline SVG: no chart library and no JavaScript.

A page builds a `Chart` with `bar_chart` or `line_chart` from numbers it already has and renders it with
`{% load charts %}{% chart my_chart %}`. The SVG is a picture for sighted readers (`role="img"`, with a
`<title>` and a `<desc>`); the same numbers follow as a table that only screen readers see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from django.utils.text import slugify

# The drawing's own coordinate space; CSS scales it to the width of its box.
WIDTH = 400
HEIGHT = 220
PLOT_LEFT = 34
PLOT_RIGHT = WIDTH - 8
PLOT_TOP = 12
PLOT_BOTTOM = HEIGHT - 26
# Axis labels closer together than this would overlap, so only every n-th one is drawn.
MIN_LABEL_SPACING = 34


@dataclass(frozen=True)
class Point:
    label: str  # short, under the axis: "47", "jan"
    value: float | None  # None: no data (a gap in a line, no bar)
    caption: str = ""  # in full, in the table: "week 47 (16 november)"; the label when empty

    @property
    def table_label(self) -> str:
        return self.caption or self.label


@dataclass(frozen=True)
class Mark:
    """One drawn bar or dot, in SVG coordinates."""

    x: float
    y: float
    width: float
    height: float
    point: Point
    text: str  # the value as the reader sees it: "4,5 °C"


@dataclass(frozen=True)
class AxisLabel:
    x: float
    y: float
    text: str
    line_y: float = 0  # y labels: where their grid line runs


@dataclass(frozen=True)
class Chart:
    kind: Literal["bar", "line"]
    title: str
    description: str
    points: list[Point]
    unit: str
    decimals: int
    dom_id: str
    marks: list[Mark] = field(default_factory=list)
    x_labels: list[AxisLabel] = field(default_factory=list)
    y_labels: list[AxisLabel] = field(default_factory=list)
    line_segments: list[str] = field(default_factory=list)  # "x,y x,y ..." per unbroken run
    baseline_y: float = PLOT_BOTTOM
    width: int = WIDTH
    height: int = HEIGHT
    plot_left: int = PLOT_LEFT
    plot_right: int = PLOT_RIGHT

    @property
    def is_empty(self) -> bool:
        return all(point.value is None for point in self.points)

    @property
    def rows(self) -> list[tuple[str, str]]:
        """The numbers for the screen-reader table: every point, a missing value as a dash."""
        return [
            (point.table_label, format_value(point.value, decimals=self.decimals, unit=self.unit))
            for point in self.points
        ]


# The units the charts count in, and their Dutch singular: "1 lid", "2 leden".
SINGULAR_UNITS = {"leden": "lid", "plonsen": "plons", "badges": "badge"}


def format_value(value: float | None, *, decimals: int = 0, unit: str = "") -> str:
    """Dutch notation: a decimal comma ("4,5 °C"), the singular for one ("1 lid"); a missing value is a dash."""
    if value is None:
        return "–"
    text = f"{value:.{decimals}f}".replace(".", ",")
    if text == "1":
        unit = SINGULAR_UNITS.get(unit, unit)
    return f"{text} {unit}".strip()


def bar_chart(
    *, title: str, description: str, points: list[Point], unit: str = "", decimals: int = 0, dom_id: str = ""
) -> Chart:
    low, high = _value_range(points, decimals)
    scale = _scale(low, high)
    slot = _slot(points)
    bar_width = max(slot * 0.72, 1.0)
    baseline = scale(0)
    marks = []
    for index, point in enumerate(points):
        if point.value is None:
            continue
        top = scale(point.value)
        x = PLOT_LEFT + index * slot + (slot - bar_width) / 2
        y, height = (top, baseline - top) if top <= baseline else (baseline, top - baseline)
        text = format_value(point.value, decimals=decimals, unit=unit)
        marks.append(Mark(round(x, 1), round(y, 1), round(bar_width, 1), round(height, 1), point, text))
    texts = {"title": title, "description": description, "unit": unit, "decimals": decimals, "dom_id": dom_id}
    return _chart("bar", points, low, high, texts, marks=marks, baseline_y=round(baseline, 1))


def line_chart(
    *, title: str, description: str, points: list[Point], unit: str = "", decimals: int = 0, dom_id: str = ""
) -> Chart:
    low, high = _value_range(points, decimals)
    scale = _scale(low, high)
    slot = _slot(points)
    marks: list[Mark] = []
    segments: list[str] = []
    run: list[str] = []
    for index, point in enumerate(points):
        if point.value is None:
            # No data that week: the line breaks rather than pretending a value.
            if run:
                segments.append(" ".join(run))
            run = []
            continue
        x = round(PLOT_LEFT + index * slot + slot / 2, 1)
        y = round(scale(point.value), 1)
        run.append(f"{x},{y}")
        marks.append(Mark(x, y, 0, 0, point, format_value(point.value, decimals=decimals, unit=unit)))
    if run:
        segments.append(" ".join(run))
    texts = {"title": title, "description": description, "unit": unit, "decimals": decimals, "dom_id": dom_id}
    return _chart(
        "line", points, low, high, texts, marks=marks, line_segments=segments, baseline_y=round(scale(low), 1)
    )


def _chart(kind, points: list[Point], low: float, high: float, texts: dict, **drawing) -> Chart:
    """What both kinds share: the texts, the id, and the labels of both axes."""
    dom_id = texts.pop("dom_id") or f"chart-{slugify(texts['title'])}"
    return Chart(
        kind=kind,
        points=points,
        dom_id=dom_id,
        x_labels=_x_labels(points, _slot(points)),
        y_labels=_y_labels(low, high, _scale(low, high), texts["decimals"]),
        **texts,
        **drawing,
    )


def _slot(points: list[Point]) -> float:
    """The width each point gets along the x axis."""
    return (PLOT_RIGHT - PLOT_LEFT) / max(len(points), 1)


def _value_range(points: list[Point], decimals: int = 0) -> tuple[float, float]:
    """From zero (or below it) to the highest value, widened to whole ticks (see `_tick_step`), never flat."""
    values = [point.value for point in points if point.value is not None]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high = low + 1
    step = _tick_step(low, high, decimals)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def _tick_step(low: float, high: float, decimals: int) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about four grid lines: 0/100/200/300, not
    0/132/263. Never finer than the labels show (whole numbers when decimals is 0)."""
    rough = (high - low) / 3
    magnitude = 10 ** math.floor(math.log10(rough))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= rough)
    return max(step, 10.0**-decimals)


def _scale(low: float, high: float):
    span = PLOT_BOTTOM - PLOT_TOP

    def to_y(value: float) -> float:
        return PLOT_BOTTOM - (value - low) / (high - low) * span

    return to_y


def _x_labels(points: list[Point], slot: float) -> list[AxisLabel]:
    step = max(1, int(-(-MIN_LABEL_SPACING // slot))) if slot else 1
    # Counted back from the last point: the newest (the current month or week) always has its label.
    last = len(points) - 1
    return [
        AxisLabel(x=round(PLOT_LEFT + index * slot + slot / 2, 1), y=HEIGHT - 8, text=point.label)
        for index, point in enumerate(points)
        if (last - index) % step == 0
    ]


def _y_labels(low: float, high: float, scale, decimals: int) -> list[AxisLabel]:
    step = _tick_step(low, high, decimals)
    count = round((high - low) / step)
    values = [low + index * step for index in range(count + 1)]
    return [
        AxisLabel(
            x=PLOT_LEFT - 6,
            y=round(scale(value) + 4, 1),
            text=format_value(value, decimals=decimals),
            line_y=round(scale(value), 1),
        )
        for value in values
    ]
