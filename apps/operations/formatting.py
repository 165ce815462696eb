"""Dutch wording of moments, ages and sizes for the Systeemstatus."""

import datetime

from django.utils import timezone

from apps.core.formatting import dutch_date


def moment(when: datetime.datetime, *, now: datetime.datetime) -> str:
    """'14:03' today, '26 november 14:03' before."""
    local, today = timezone.localtime(when), timezone.localtime(now).date()
    clock = f"{local:%H:%M}"
    if local.date() == today:
        return clock
    day = dutch_date(local.date())
    if local.year == today.year:
        day = day.rsplit(" ", 1)[0]
    return f"{day} {clock}"


def age(delta: datetime.timedelta) -> str:
    """'3 dagen', '5 uur', '12 minuten', '1 minuut', 'minder dan een minuut'."""
    seconds = max(int(delta.total_seconds()), 0)
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} dagen"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} uur"
    minutes = seconds // 60
    if minutes == 0:
        return "minder dan een minuut"
    return "1 minuut" if minutes == 1 else f"{minutes} minuten"


def size(num_bytes: int) -> str:
    """'12,3 MB', '1,4 GB', '820 kB'."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2)):
        if num_bytes >= factor:
            return f"{num_bytes / factor:.1f} {unit}".replace(".", ",")
    return f"{max(num_bytes // 1024, 1) if num_bytes else 0} kB"
