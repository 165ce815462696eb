from decimal import Decimal

from django import template

from apps.challenges.conditions import temperature_display
from apps.core.formatting import dutch_date

from ..charts import month_name

register = template.Library()


@register.filter
def time_in_water(seconds: int) -> str:
    """Total seconds as "3 u 05 min" (or "12 min")."""
    minutes = (seconds or 0) // 60
    hours, minutes = divmod(minutes, 60)
    return f"{hours} u {minutes:02d} min" if hours else f"{minutes} min"


@register.filter
def celsius(value: Decimal | None) -> str:
    return temperature_display(value)


@register.filter
def dutch_day(value) -> str:
    return dutch_date(value)


register.filter("dutch_month", month_name)
