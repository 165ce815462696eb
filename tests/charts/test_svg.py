"""The shared server-side charts: accessible markup, Dutch numbers, honest gaps, escaped texts."""

import re

from django.template import Context, Template

from apps.charts.svg import PLOT_BOTTOM, PLOT_TOP, Point, bar_chart, format_value, line_chart


def render(chart) -> str:
    return Template("{% load charts %}{% chart chart %}").render(Context({"chart": chart}))


def test_bar_chart_is_an_image_with_title_description_and_a_table_of_the_numbers():
    chart = bar_chart(
        title="Plonsen per week",
        description="Het aantal plonsen in elk van de laatste 3 weken.",
        points=[Point("45", 2, "week 45"), Point("46", 0, "week 46"), Point("47", 5, "week 47")],
        unit="plonsen",
    )
    html = render(chart)
    svg = re.search(r"<svg[^>]*>", html).group(0)
    assert 'role="img"' in svg
    assert 'aria-labelledby="chart-plonsen-per-week-title chart-plonsen-per-week-desc"' in svg
    assert '<title id="chart-plonsen-per-week-title">Plonsen per week</title>' in html
    assert '<desc id="chart-plonsen-per-week-desc">Het aantal plonsen in elk van de laatste 3 weken.</desc>' in html
    assert html.count('class="chart-bar"') == 3
    rows = re.findall(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td></tr>', html)
    assert rows == [("week 45", "2 plonsen"), ("week 46", "0 plonsen"), ("week 47", "5 plonsen")]


def test_the_tallest_bar_fills_the_plot_and_bars_stand_on_the_baseline():
    chart = bar_chart(title="t", description="d", points=[Point("a", 1), Point("b", 4)])
    small, tall = chart.marks
    assert tall.y == PLOT_TOP
    assert tall.y + tall.height == PLOT_BOTTOM
    assert small.y + small.height == PLOT_BOTTOM
    assert small.height == (PLOT_BOTTOM - PLOT_TOP) / 4


def test_line_chart_breaks_where_there_is_no_data_and_shows_a_dash_in_the_table():
    chart = line_chart(
        title="Watertemperatuur",
        description="Gemiddelde watertemperatuur per maand.",
        points=[Point("sep", 16.5), Point("okt", None, "oktober"), Point("nov", 8.0), Point("dec", 4.25)],
        unit="°C",
        decimals=1,
    )
    assert len(chart.line_segments) == 2
    assert len(chart.marks) == 3
    assert chart.rows == [("sep", "16,5 °C"), ("oktober", "–"), ("nov", "8,0 °C"), ("dec", "4,2 °C")]
    assert render(chart).count("<polyline") == 2


def test_values_below_zero_fit_in_the_plot():
    chart = line_chart(title="t", description="d", points=[Point("a", -1.5), Point("b", 3)], decimals=1)
    ys = [mark.y for mark in chart.marks]
    assert all(PLOT_TOP <= y <= PLOT_BOTTOM for y in ys)
    assert ys[0] > ys[1]
    # The axis runs over round ticks around the values (issue 28 §5).
    assert [label.text for label in chart.y_labels] == ["-2,0", "0,0", "2,0", "4,0"]


def test_the_axis_ticks_are_round_numbers():
    """Issue 28 §5: 263 gave ticks 0/132/263."""
    chart = bar_chart(title="t", description="d", points=[Point("a", 263), Point("b", 40)])
    assert [label.text for label in chart.y_labels] == ["0", "100", "200", "300"]
    tall = chart.marks[0]
    assert PLOT_TOP < tall.y < PLOT_TOP + (PLOT_BOTTOM - PLOT_TOP) * 0.15  # 263 of 300: near the top, not over it
    few = bar_chart(title="t", description="d", points=[Point("a", 1)])
    assert [label.text for label in few.y_labels] == ["0", "1"]  # never a "0,5" shown as "1"


def test_the_newest_point_keeps_its_axis_label_when_labels_are_thinned():
    """Issue 28 §5: the current month's bar had no label."""
    for count in (12, 13, 26):
        chart = bar_chart(title="t", description="d", points=[Point(f"p{n}", n) for n in range(count)])
        assert chart.x_labels[-1].text == f"p{count - 1}"


def test_one_is_singular_in_dutch():
    assert format_value(1, unit="leden") == "1 lid"
    assert format_value(2, unit="leden") == "2 leden"
    assert format_value(1, unit="plonsen") == "1 plons"
    assert format_value(1, unit="badges") == "1 badge"
    assert format_value(1.0, decimals=1, unit="°C") == "1,0 °C"


def test_an_all_empty_chart_draws_no_marks_and_says_it_is_empty():
    chart = bar_chart(title="t", description="d", points=[Point("a", None), Point("b", 0)])
    assert chart.is_empty is False  # a zero is data
    assert bar_chart(title="t", description="d", points=[Point("a", None)]).is_empty
    assert line_chart(title="t", description="d", points=[]).marks == []


def test_crowded_axis_labels_are_thinned_out():
    chart = bar_chart(title="t", description="d", points=[Point(str(n), n) for n in range(26)])
    assert 4 <= len(chart.x_labels) < 26
    spacing = chart.x_labels[1].x - chart.x_labels[0].x
    assert spacing >= 34


def test_texts_are_escaped():
    chart = bar_chart(title="<script>x</script>", description='"&', points=[Point("<b>", 1)], dom_id="c1")
    html = render(chart)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html


def test_format_value_uses_the_dutch_decimal_comma():
    assert format_value(4.5, decimals=1, unit="°C") == "4,5 °C"
    assert format_value(None) == "–"
    assert format_value(12) == "12"


def test_coordinates_are_never_written_with_the_dutch_decimal_comma():
    """The page is rendered in Dutch, but an SVG attribute like x="63,5" would not be drawn at all."""
    html = render(bar_chart(title="t", description="d", points=[Point("a", 1), Point("b", 3), Point("c", 2)]))
    coordinates = re.findall(r'\b(?:x|y|width|height|x1|x2|y1|y2)="([^"]*)"', html)
    assert coordinates and all("," not in value for value in coordinates)
