"""An iCalendar (RFC 5545) file for one event, so a member can put it in their own calendar.

Written by hand because it is small: one VEVENT in Europe/Amsterdam with the VTIMEZONE that the
TZID needs, text escaped (3.3.11), lines folded at 75 octets (3.1) and ended with CRLF.
"""

import datetime
import zoneinfo
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from django.utils.text import slugify

from .models import Event

TZID = "Europe/Amsterdam"
DEFAULT_DURATION = datetime.timedelta(hours=1)
PRODID = "-//Koud water challenge//Events//NL"
MAX_LINE_OCTETS = 75

# CET/CEST as the EU has defined it since 1996: summer time from the last Sunday of March 02:00 CET
# to the last Sunday of October 03:00 CEST. Calendar apps need these rules to read a TZID time.
VTIMEZONE_AMSTERDAM = [
    "BEGIN:VTIMEZONE",
    f"TZID:{TZID}",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "TZNAME:CEST",
    "DTSTART:19810329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "TZNAME:CET",
    "DTSTART:19961027T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
]


def escape_text(value: str) -> str:
    """TEXT escaping: backslash first, so the escapes added after it are not doubled."""
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return value.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def fold(line: str) -> str:
    """Split a content line into pieces of at most 75 octets; each continuation starts with a space.

    Counted in UTF-8 octets and cut only between characters, so a multi-byte character is never split.
    """
    pieces: list[str] = []
    current, size, limit = [], 0, MAX_LINE_OCTETS
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            pieces.append("".join(current))
            # The leading space of a continuation line counts towards its 75 octets.
            current, size, limit = [" "], 1, MAX_LINE_OCTETS
        current.append(char)
        size += width
    pieces.append("".join(current))
    return "\r\n".join(pieces)


def _local(moment: datetime.datetime) -> str:
    return moment.astimezone(zoneinfo.ZoneInfo(TZID)).strftime("%Y%m%dT%H%M%S")


def _utc(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")


def _uid_domain() -> str:
    # The UID must stay the same for every download of the same event, whatever host served it.
    return urlsplit(settings.SITE_URL).hostname or "koud-water-challenge"


def event_ics(event: Event, *, now: datetime.datetime | None = None, url: str = "") -> bytes:
    """The calendar file for `event`, as UTF-8 bytes."""
    start = event.event_date
    # The model has no end time: one hour, added in UTC so a night with a clock change stays one hour.
    end = start + DEFAULT_DURATION
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        *VTIMEZONE_AMSTERDAM,
        "BEGIN:VEVENT",
        f"UID:event-{event.pk}@{_uid_domain()}",
        f"DTSTAMP:{_utc(now or timezone.now())}",
        f"DTSTART;TZID={TZID}:{_local(start)}",
        f"DTEND;TZID={TZID}:{_local(end)}",
        f"SUMMARY:{escape_text(event.title)}",
    ]
    if event.location:
        lines.append(f"LOCATION:{escape_text(event.location)}")
    if event.description:
        lines.append(f"DESCRIPTION:{escape_text(event.description)}")
    if url:
        lines.append(f"URL:{url}")
    lines += ["END:VEVENT", "END:VCALENDAR"]
    return "".join(fold(line) + "\r\n" for line in lines).encode("utf-8")


def ics_filename(event: Event) -> str:
    return f"{slugify(event.title) or 'event'}-{event.pk}.ics"


# --- The member's calendar subscription (/agenda/<token>.ics) -------------------------------------
# One calendar with every event the member joined, built with `icalendar`. Phone calendars fetch it
# again by themselves: REFRESH-INTERVAL (RFC 7986) and the older X-PUBLISHED-TTL say how often.
FEED_REFRESH_INTERVAL = datetime.timedelta(hours=1)
FEED_NAME = "Koud water challenge"


def member_calendar_ics(events, *, now: datetime.datetime | None = None, url: str = "") -> bytes:
    """The subscription feed for a member: one VEVENT per event, with the same UID as the single download."""
    import icalendar

    stamp = (now or timezone.now()).astimezone(datetime.UTC)
    calendar = icalendar.Calendar.new(
        name=FEED_NAME,
        prodid=PRODID,
        calscale="GREGORIAN",
        method="PUBLISH",
        refresh_interval=FEED_REFRESH_INTERVAL,
    )
    calendar.add("x-published-ttl", FEED_REFRESH_INTERVAL)
    amsterdam = zoneinfo.ZoneInfo(TZID)
    for event in events:
        start = event.event_date.astimezone(amsterdam)
        component = icalendar.Event.new(
            uid=f"event-{event.pk}@{_uid_domain()}",
            stamp=stamp,
            start=start,
            end=(event.event_date + DEFAULT_DURATION).astimezone(amsterdam),
            summary=event.title,
            location=event.location or None,
            description=event.description or None,
        )
        if url:
            component.add("url", url)
        calendar.add_component(component)
    calendar.add_missing_timezones()
    return calendar.to_ical()
