from django import template

from apps.charts.svg import Chart

register = template.Library()


@register.inclusion_tag("charts/chart.html")
def chart(chart: Chart):
    return {"chart": chart}
