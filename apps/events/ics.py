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


def _cancelled_description(event: Event) -> str:
    """An afgelast event says so first, with the reason, above what it said before."""
    notice = f"Afgelast. Reden: {event.cancel_reason}" if event.cancel_reason else "Afgelast."
    return f"{notice}\n\n{event.description}" if event.description else notice


def event_component(event: Event, *, stamp: datetime.datetime, url: str = "") -> icalendar.Event:
    """One VEVENT in Amsterdam time; its UID is the same in every calendar the event appears in.

    An afgelast event stays, as STATUS:CANCELLED (RFC 5545 3.8.1.11) with the reason in its description (and
    "Afgelast: " before its title, for calendars that do not show the status): a calendar that already holds
    it then marks it off instead of keeping an event that does not happen."""
    amsterdam = zoneinfo.ZoneInfo(TZID)
    cancelled = event.is_cancelled
    # The model has no end time: one hour, added in UTC so a night with a clock change stays one hour.
    component = icalendar.Event.new(
        uid=f"event-{event.pk}@{_uid_domain()}",
        stamp=stamp.astimezone(datetime.UTC),
        start=event.event_date.astimezone(amsterdam),
        end=(event.event_date + DEFAULT_DURATION).astimezone(amsterdam),
        summary=f"Afgelast: {event.title}" if cancelled else event.title,
        location=event.location or None,
        description=(_cancelled_description(event) if cancelled else event.description) or None,
        url=url or None,
    )
    if cancelled:
        component.add("status", "CANCELLED")
    return component


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
    """The subscription feed for a member: one VEVENT per event, the same as the single download (same UID; an
    afgelast event as STATUS:CANCELLED)."""
    stamp = (now or timezone.now()).astimezone(datetime.UTC)
    calendar = icalendar.Calendar.new(
        name=FEED_NAME,
        prodid=PRODID,
        calscale="GREGORIAN",
        method="PUBLISH",
        refresh_interval=FEED_REFRESH_INTERVAL,
    )
    calendar.add("x-published-ttl", FEED_REFRESH_INTERVAL)
    for event in events:
        calendar.add_component(event_component(event, stamp=stamp, url=url))
    calendar.add_missing_timezones()
    return calendar.to_ical()
