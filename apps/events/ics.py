"""An iCalendar (RFC 5545) file for one event, so a member can put it in their own calendar.

Built with `icalendar`, which escapes text, folds lines at 75 octets and writes the VTIMEZONE that
the Europe/Amsterdam times need (from Python's tz database, so it follows any change of the rules).
"""

import datetime
import zoneinfo
from urllib.parse import urlsplit

import icalendar
from django.conf import settings
from django.utils import timezone
from django.utils.text import slugify

from .models import Event

# The calendar speaks the site's own zone (Europe/Amsterdam), as every date the app shows does.
TZID = settings.TIME_ZONE
DEFAULT_DURATION = datetime.timedelta(hours=1)
PRODID = "-//Koud water challenge//Events//NL"


def _uid_domain() -> str:
    # The UID must stay the same for every download of the same event, whatever host served it.
    return urlsplit(settings.SITE_URL).hostname or "koud-water-challenge"


def event_component(event: Event, *, stamp: datetime.datetime, url: str = "") -> icalendar.Event:
    """One VEVENT in Amsterdam time; its UID is the same in every calendar the event appears in."""
    amsterdam = zoneinfo.ZoneInfo(TZID)
    # The model has no end time: one hour, added in UTC so a night with a clock change stays one hour.
    return icalendar.Event.new(
        uid=f"event-{event.pk}@{_uid_domain()}",
        stamp=stamp.astimezone(datetime.UTC),
        start=event.event_date.astimezone(amsterdam),
        end=(event.event_date + DEFAULT_DURATION).astimezone(amsterdam),
        summary=event.title,
        location=event.location or None,
        description=event.description or None,
        url=url or None,
    )


def event_ics(event: Event, *, now: datetime.datetime | None = None, url: str = "") -> bytes:
    """The calendar file for `event`, as UTF-8 bytes."""
    calendar = icalendar.Calendar.new(prodid=PRODID, calscale="GREGORIAN", method="PUBLISH")
    calendar.add_component(event_component(event, stamp=now or timezone.now(), url=url))
    # The VTIMEZONE covers the event's year and the next: every clock change near the event, no more.
    year = timezone.localtime(event.event_date, zoneinfo.ZoneInfo(TZID)).year
    calendar.add_missing_timezones(first_date=datetime.date(year, 1, 1), last_date=datetime.date(year + 2, 1, 1))
    return calendar.to_ical()


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
