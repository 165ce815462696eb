"""The .ics file, read back with `icalendar` (not with a parser written here)."""

import datetime
import zoneinfo

import icalendar
import pytest
from django.test import override_settings
from django.urls import reverse

from apps.events.ics import event_ics
from apps.events.services import event_cancel
from tests.factories import EventFactory

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
NOW = datetime.datetime(2026, 11, 21, 9, 30, 15, tzinfo=datetime.UTC)


def read_back(raw: bytes) -> icalendar.Calendar:
    assert raw.endswith(b"\r\n"), "the last line ends with CRLF too"
    assert b"\n" not in raw.replace(b"\r\n", b""), "bare LF"
    return icalendar.Calendar.from_ical(raw)


def the_event(raw: bytes) -> icalendar.Event:
    (event,) = read_back(raw).events
    return event


# The file -------------------------------------------------------------------------------------------------


@override_settings(SITE_URL="https://koudwater.example.nl")
def test_a_complete_vevent_in_amsterdam_time():
    event = EventFactory(
        title="Sinterklaasduik",
        event_date=datetime.datetime(2026, 12, 5, 10, 30, tzinfo=AMSTERDAM),
        location="Strand Scheveningen",
        description="Verzamelen bij de pier.",
    )

    calendar = read_back(event_ics(event, now=NOW, url="https://koudwater.example.nl/dashboard#events"))
    (read,) = calendar.events

    assert calendar.get("VERSION") == "2.0" and calendar.get("PRODID")
    assert read.uid == f"event-{event.pk}@koudwater.example.nl"
    assert read.DTSTAMP == NOW
    assert read.start == event.event_date and read.start.tzinfo.key == "Europe/Amsterdam"
    assert read["DTSTART"].params["TZID"] == "Europe/Amsterdam"
    assert read.end - read.start == datetime.timedelta(hours=1)
    assert (read.get("SUMMARY"), read.get("LOCATION")) == ("Sinterklaasduik", "Strand Scheveningen")
    assert read.get("DESCRIPTION") == "Verzamelen bij de pier."
    assert read.get("URL") == "https://koudwater.example.nl/dashboard#events"


@pytest.mark.parametrize(
    "moment",
    [
        datetime.datetime(2026, 1, 15, 12, 0, tzinfo=datetime.UTC),
        datetime.datetime(2026, 3, 29, 0, 59, tzinfo=datetime.UTC),  # a minute before summer time
        datetime.datetime(2026, 3, 29, 1, 0, tzinfo=datetime.UTC),
        datetime.datetime(2026, 7, 1, 6, 0, tzinfo=datetime.UTC),
        datetime.datetime(2026, 10, 25, 0, 59, tzinfo=datetime.UTC),  # a minute before winter time
        datetime.datetime(2026, 10, 25, 1, 0, tzinfo=datetime.UTC),
        datetime.datetime(2027, 6, 1, 6, 0, tzinfo=datetime.UTC),
    ],
)
def test_the_vtimezone_agrees_with_the_tz_database_around_the_event(moment):
    calendar = read_back(event_ics(EventFactory(event_date=datetime.datetime(2026, 5, 1, tzinfo=AMSTERDAM))))
    (vtimezone,) = calendar.timezones
    assert vtimezone.tz_name == "Europe/Amsterdam"
    assert moment.astimezone(vtimezone.to_tz()).utcoffset() == moment.astimezone(AMSTERDAM).utcoffset()


def test_summer_time_and_the_night_the_clocks_go_forward():
    summer = the_event(event_ics(EventFactory(event_date=datetime.datetime(2026, 7, 1, 6, 0, tzinfo=datetime.UTC))))
    assert (summer.start.hour, summer.end.hour) == (8, 9)

    # 01:30 CET on 29 March 2026; an hour later the clock says 03:30 CEST.
    night = the_event(event_ics(EventFactory(event_date=datetime.datetime(2026, 3, 29, 0, 30, tzinfo=datetime.UTC))))
    assert (night.start.strftime("%H:%M"), night.end.strftime("%H:%M")) == ("01:30", "03:30")
    # Python subtracts wall-clock times within one zone: compare in UTC.
    assert night.end.astimezone(datetime.UTC) - night.start.astimezone(datetime.UTC) == datetime.timedelta(hours=1)


def test_dtstamp_is_utc_whatever_the_local_time():
    local_now = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=AMSTERDAM)
    raw = event_ics(EventFactory(), now=local_now)
    assert b"DTSTAMP:20260701T100000Z\r\n" in raw
    assert the_event(raw).DTSTAMP == local_now


def test_text_is_escaped_and_comes_back_unchanged():
    title = "Duik, koud; heel \\koud"
    description = "Regel één,\nregel twee; met \\ en ,\nklaar"
    event = EventFactory(title=title, location="Pier; kop, eind", description=description)

    raw = event_ics(event, now=NOW)

    assert b"SUMMARY:Duik\\, koud\\; heel \\\\koud\r\n" in raw
    read = the_event(raw)
    assert (read.get("SUMMARY"), read.get("LOCATION"), read.get("DESCRIPTION")) == (
        title,
        "Pier; kop, eind",
        description,
    )


def test_empty_location_and_description_are_left_out():
    read = the_event(event_ics(EventFactory(location="", description=""), now=NOW))
    assert "LOCATION" not in read and "DESCRIPTION" not in read


def test_long_lines_are_folded_at_75_octets_without_splitting_a_character():
    description = "IJskoud water, één duik 🥶 per dag. " * 12
    event = EventFactory(title="Héél lange titel " * 8, description=description)

    raw = event_ics(event, now=NOW)

    lines = raw.removesuffix(b"\r\n").split(b"\r\n")
    for line in lines:
        assert len(line) <= 75
        line.decode("utf-8")  # a multi-byte character is never cut in half
    assert len([line for line in lines if line.startswith(b" ")]) > 5
    read = the_event(raw)
    assert (read.get("DESCRIPTION"), read.get("SUMMARY")) == (description, "Héél lange titel " * 8)


def test_the_uid_is_stable_and_unique_per_event():
    first, second = EventFactory.create_batch(2)
    assert the_event(event_ics(first, now=NOW)).uid == the_event(event_ics(first)).uid
    assert the_event(event_ics(first)).uid != the_event(event_ics(second)).uid


# The download ---------------------------------------------------------------------------------------------


def test_member_downloads_the_file(member_client):
    event = EventFactory(title="Nieuwjaarsduik Zandvoort")

    response = member_client.get(reverse("event_ics", args=[event.pk]))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="nieuwjaarsduik-zandvoort-{event.pk}.ics"'
    (read,) = read_back(response.content).events
    assert read.get("SUMMARY") == "Nieuwjaarsduik Zandvoort"
    assert read.get("URL").endswith(f"/events/{event.pk}")  # the event's own page


def test_a_title_without_letters_still_gets_a_filename(member_client):
    event = EventFactory(title="🥶🥶")
    response = member_client.get(reverse("event_ics", args=[event.pk]))
    assert response["Content-Disposition"] == f'attachment; filename="event-{event.pk}.ics"'


def test_admin_downloads_too(admin_client):
    assert admin_client.get(reverse("event_ics", args=[EventFactory().pk])).status_code == 200


def test_inactive_and_unknown_events_have_no_file(member_client):
    inactive = EventFactory(is_active=False)
    assert member_client.get(reverse("event_ics", args=[inactive.pk])).status_code == 404
    assert member_client.get(reverse("event_ics", args=[987654])).status_code == 404
    assert member_client.get("/events/99999999999999999999.ics").status_code == 404


def test_the_event_page_links_to_the_file(member_client):
    event = EventFactory()
    html = member_client.get(f"/events/{event.pk}").content.decode()
    assert f'href="{reverse("event_ics", args=[event.pk])}"' in html


# Afgelast -------------------------------------------------------------------------------------------------


def test_an_afgelast_event_stays_in_its_file_as_cancelled_with_the_reason(member_client):
    event = EventFactory(title="Zondagduik", description="Verzamelen bij de pier.", location="Strand Scheveningen")
    event_cancel(event_id=event.pk, reason="Storm op zee, code oranje")

    response = member_client.get(reverse("event_ics", args=[event.pk]))

    assert response.status_code == 200
    read = the_event(response.content)
    assert read.get("STATUS") == "CANCELLED"  # RFC 5545 3.8.1.11
    assert read.uid == the_event(event_ics(EventFactory.build(pk=event.pk))).uid  # the same event, marked off
    assert read.get("SUMMARY") == "Afgelast: Zondagduik"
    assert read.get("DESCRIPTION") == "Afgelast. Reden: Storm op zee, code oranje\n\nVerzamelen bij de pier."
    assert read.get("LOCATION") == "Strand Scheveningen"


def test_an_event_that_goes_ahead_has_no_status_cancelled():
    read = the_event(event_ics(EventFactory(description=""), now=NOW))
    assert "STATUS" not in read and read.get("DESCRIPTION") is None
