"""The .ics file, checked by parsing it back: a tiny RFC 5545 reader lives in this module."""

import datetime
import zoneinfo

import pytest
from django.test import override_settings
from django.urls import reverse

from apps.events.ics import escape_text, event_ics, fold
from tests.factories import EventFactory

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
NOW = datetime.datetime(2026, 11, 21, 9, 30, 15, tzinfo=datetime.UTC)


# A tiny iCalendar reader ----------------------------------------------------------------------------------


def physical_lines(raw: bytes) -> list[bytes]:
    assert raw.endswith(b"\r\n"), "the last line ends with CRLF too"
    assert b"\n" not in raw.replace(b"\r\n", b""), "bare LF"
    assert b"\r" not in raw.replace(b"\r\n", b""), "bare CR"
    return raw[: -len(b"\r\n")].split(b"\r\n")


def unfold(raw: bytes) -> list[str]:
    """RFC 5545 3.1: a CRLF followed by one space or tab is removed."""
    text = raw.decode("utf-8")
    return text.replace("\r\n ", "").replace("\r\n\t", "").removesuffix("\r\n").split("\r\n")


def unescape(value: str) -> str:
    out, chars = [], iter(value)
    for char in chars:
        if char == "\\":
            following = next(chars)
            out.append("\n" if following in "nN" else following)
        else:
            out.append(char)
    return "".join(out)


def parse(raw: bytes) -> dict:
    """Components as nested dicts: {"VCALENDAR": [{"props": {...}, "VEVENT": [...]}]}."""
    root: dict = {"props": {}}
    stack = [root]
    for line in unfold(raw):
        name_params, _, value = line.partition(":")
        name, *params = name_params.split(";")
        if name == "BEGIN":
            child = {"props": {}}
            stack[-1].setdefault(value, []).append(child)
            stack.append(child)
        elif name == "END":
            stack.pop()
        else:
            stack[-1]["props"][name] = (dict(p.split("=", 1) for p in params), value)
    assert len(stack) == 1, "every BEGIN has its END"
    return root


def vevent(raw: bytes) -> dict:
    (calendar,) = parse(raw)["VCALENDAR"]
    (event,) = calendar["VEVENT"]
    return event["props"]


def local_time(prop) -> datetime.datetime:
    params, value = prop
    assert params == {"TZID": "Europe/Amsterdam"}
    return datetime.datetime.strptime(value, "%Y%m%dT%H%M%S").replace(tzinfo=AMSTERDAM)


# The file -------------------------------------------------------------------------------------------------


@override_settings(SITE_URL="https://koudwater.example.nl")
def test_a_complete_vevent_in_amsterdam_time():
    event = EventFactory(
        title="Sinterklaasduik",
        event_date=datetime.datetime(2026, 12, 5, 10, 30, tzinfo=AMSTERDAM),
        location="Strand Scheveningen",
        description="Verzamelen bij de pier.",
    )

    raw = event_ics(event, now=NOW, url="https://koudwater.example.nl/dashboard#events")
    (calendar,) = parse(raw)["VCALENDAR"]
    props = vevent(raw)

    assert calendar["props"]["VERSION"] == ({}, "2.0")
    assert calendar["props"]["PRODID"][1]
    assert props["UID"] == ({}, f"event-{event.pk}@koudwater.example.nl")
    assert props["DTSTAMP"] == ({}, "20261121T093015Z")
    assert "DTSTART;TZID=Europe/Amsterdam:20261205T103000" in unfold(raw)
    assert "DTEND;TZID=Europe/Amsterdam:20261205T113000" in unfold(raw)
    assert local_time(props["DTSTART"]) == event.event_date
    assert local_time(props["DTEND"]) - local_time(props["DTSTART"]) == datetime.timedelta(hours=1)
    assert unescape(props["SUMMARY"][1]) == "Sinterklaasduik"
    assert unescape(props["LOCATION"][1]) == "Strand Scheveningen"
    assert unescape(props["DESCRIPTION"][1]) == "Verzamelen bij de pier."
    assert props["URL"] == ({}, "https://koudwater.example.nl/dashboard#events")
    lines = unfold(raw)
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR"


def test_the_vtimezone_has_the_cet_and_cest_rules():
    raw = event_ics(EventFactory(), now=NOW)
    (calendar,) = parse(raw)["VCALENDAR"]
    (tz,) = calendar["VTIMEZONE"]
    assert tz["props"]["TZID"] == ({}, "Europe/Amsterdam")
    (summer,) = tz["DAYLIGHT"]
    (winter,) = tz["STANDARD"]
    assert {k: v for k, (_, v) in summer["props"].items()} == {
        "TZOFFSETFROM": "+0100",
        "TZOFFSETTO": "+0200",
        "TZNAME": "CEST",
        "DTSTART": "19810329T020000",
        "RRULE": "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    }
    assert {k: v for k, (_, v) in winter["props"].items()} == {
        "TZOFFSETFROM": "+0200",
        "TZOFFSETTO": "+0100",
        "TZNAME": "CET",
        "DTSTART": "19961027T030000",
        "RRULE": "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    }
    # The VTIMEZONE appears before the VEVENT that uses it.
    lines = unfold(raw)
    assert lines.index("BEGIN:VTIMEZONE") < lines.index("BEGIN:VEVENT")


@pytest.mark.parametrize("year", range(2026, 2036))
def test_the_rules_agree_with_the_tz_database(year):
    """Last Sunday of March 01:00 UTC and of October 01:00 UTC, as the RRULEs say, for ten years."""

    def last_sunday(month: int) -> datetime.date:
        day = datetime.date(year, month, 31)
        return day - datetime.timedelta(days=(day.weekday() + 1) % 7)

    spring = datetime.datetime.combine(last_sunday(3), datetime.time(1), tzinfo=datetime.UTC)
    autumn = datetime.datetime.combine(last_sunday(10), datetime.time(1), tzinfo=datetime.UTC)
    second = datetime.timedelta(seconds=1)
    offset = lambda moment: moment.astimezone(AMSTERDAM).utcoffset()  # noqa: E731
    assert (offset(spring - second), offset(spring)) == (datetime.timedelta(hours=1), datetime.timedelta(hours=2))
    assert (offset(autumn - second), offset(autumn)) == (datetime.timedelta(hours=2), datetime.timedelta(hours=1))


def test_summer_time_and_the_night_the_clocks_go_forward():
    summer = EventFactory(event_date=datetime.datetime(2026, 7, 1, 6, 0, tzinfo=datetime.UTC))
    props = vevent(event_ics(summer, now=NOW))
    assert props["DTSTART"][1] == "20260701T080000"
    assert props["DTEND"][1] == "20260701T090000"

    # 01:30 CET on 29 March 2026; an hour later the clock says 03:30 CEST.
    night = EventFactory(event_date=datetime.datetime(2026, 3, 29, 0, 30, tzinfo=datetime.UTC))
    props = vevent(event_ics(night, now=NOW))
    assert (props["DTSTART"][1], props["DTEND"][1]) == ("20260329T013000", "20260329T033000")


def test_dtstamp_is_utc_whatever_the_local_time():
    local_now = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=AMSTERDAM)
    assert vevent(event_ics(EventFactory(), now=local_now))["DTSTAMP"] == ({}, "20260701T100000Z")


def test_text_is_escaped_and_comes_back_unchanged():
    title = "Duik, koud; heel \\koud"
    description = "Regel één,\nregel twee; met \\ en ,\r\nklaar"
    event = EventFactory(title=title, location="Pier; kop, eind", description=description)

    raw = event_ics(event, now=NOW)
    lines = unfold(raw)

    assert "SUMMARY:Duik\\, koud\\; heel \\\\koud" in lines
    assert "LOCATION:Pier\\; kop\\, eind" in lines
    assert "DESCRIPTION:Regel één\\,\\nregel twee\\; met \\\\ en \\,\\nklaar" in lines
    props = vevent(raw)
    assert unescape(props["SUMMARY"][1]) == title
    assert unescape(props["LOCATION"][1]) == "Pier; kop, eind"
    assert unescape(props["DESCRIPTION"][1]) == description.replace("\r\n", "\n")


def test_empty_location_and_description_are_left_out():
    props = vevent(event_ics(EventFactory(location="", description=""), now=NOW))
    assert "LOCATION" not in props and "DESCRIPTION" not in props


def test_long_lines_are_folded_at_75_octets_without_splitting_a_character():
    description = "IJskoud water, één duik 🥶 per dag. " * 12
    event = EventFactory(title="Héél lange titel " * 8, description=description)

    raw = event_ics(event, now=NOW)

    lines = physical_lines(raw)
    assert max(len(line) for line in lines) == 75  # folded right at the limit, not earlier
    for line in lines:
        assert len(line) <= 75
        line.decode("utf-8")  # a multi-byte character is never cut in half
    continuations = [line for line in lines if line.startswith(b" ")]
    assert len(continuations) > 5
    props = vevent(raw)
    assert unescape(props["DESCRIPTION"][1]) == description
    assert unescape(props["SUMMARY"][1]) == "Héél lange titel " * 8


def test_fold_and_escape_edge_cases():
    assert fold("A" * 75) == "A" * 75
    assert fold("A" * 76) == "A" * 75 + "\r\n A"
    assert fold("A" * 74 + "é") == "A" * 74 + "\r\n é"  # é is two octets: it goes to the next line whole
    assert fold("A" * (75 + 74 + 1)) == "A" * 75 + "\r\n " + "A" * 74 + "\r\n A"
    assert escape_text("a\\,b") == "a\\\\\\,b"


def test_the_uid_is_stable_and_unique_per_event():
    first, second = EventFactory.create_batch(2)
    assert vevent(event_ics(first, now=NOW))["UID"] == vevent(event_ics(first))["UID"]
    assert vevent(event_ics(first))["UID"] != vevent(event_ics(second))["UID"]


# The download ---------------------------------------------------------------------------------------------


def test_member_downloads_the_file(member_client):
    event = EventFactory(title="Nieuwjaarsduik Zandvoort")

    response = member_client.get(reverse("event_ics", args=[event.pk]))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="nieuwjaarsduik-zandvoort-{event.pk}.ics"'
    props = vevent(response.content)
    assert unescape(props["SUMMARY"][1]) == "Nieuwjaarsduik Zandvoort"
    assert props["URL"][1].endswith("/dashboard#events")


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


def test_the_dashboard_links_to_the_file(member_client):
    event = EventFactory()
    html = member_client.get("/dashboard").content.decode()
    assert f'href="{reverse("event_ics", args=[event.pk])}"' in html
