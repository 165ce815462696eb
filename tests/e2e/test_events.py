"""Sign up for an event and cancel again, in real Chromium, without any JavaScript of ours."""

import datetime
import re
import zoneinfo
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, screenshot, sign_in
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")


@pytest.fixture
def events(transactional_db):
    sinterklaas = EventFactory(
        title="Sinterklaasduik",
        event_date=datetime.datetime(2099, 12, 5, 10, 30, tzinfo=AMSTERDAM),
        location="Strand Scheveningen, bij de pier",
        description="Samen het water in, daarna warme chocolademelk.",
        max_participants=10,
    )
    EventParticipantFactory.create_batch(3, event=sinterklaas)
    full = EventFactory(
        title="Volle maan plons",
        event_date=datetime.datetime(2099, 12, 12, 21, 0, tzinfo=AMSTERDAM),
        location="Sloterplas",
        description="Plonzen bij volle maan.",
        max_participants=2,
    )
    EventParticipantFactory.create_batch(2, event=full)
    EventFactory(
        title="Nieuwjaarsduik",
        event_date=datetime.datetime(2100, 1, 1, 12, 0, tzinfo=AMSTERDAM),
        location="Zandvoort",
        description="",
    )
    return sinterklaas


def test_sign_up_and_cancel_from_the_dashboard(page, events):
    member = UserFactory(full_name="Marit Zwemmer")
    sign_in(page, member)

    page.goto(page.base_url + "/dashboard")
    section = page.locator("#events")
    expect(section.get_by_role("heading", name="Eerstvolgende events")).to_be_visible()
    card = section.get_by_role("article", name="Sinterklaasduik")
    expect(card).to_contain_text("zaterdag 5 december 2099, 10:30")
    expect(card).to_contain_text("Strand Scheveningen, bij de pier")
    expect(card).to_contain_text("3 / 10 deelnemers")
    expect(section.get_by_role("article", name="Volle maan plons").get_by_role("button", name="Vol")).to_be_disabled()
    screenshot(page, "events_dashboard_before")

    card.get_by_role("button", name="Aanmelden").click()

    expect(page).to_have_url(re.compile(r"/dashboard#events$"))
    expect(page.get_by_text("Je bent aangemeld voor dit event!")).to_be_visible()
    card = page.locator("#events").get_by_role("article", name="Sinterklaasduik")
    expect(card.get_by_text("Aangemeld", exact=True)).to_be_visible()
    expect(card).to_contain_text("4 / 10 deelnemers")
    assert events.participants.filter(user=member).exists()
    screenshot(page, "events_dashboard_joined")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#events").screenshot(path=str(ARTIFACTS / "events_section_joined.png"))

    card.get_by_role("button", name="Afmelden").click()

    expect(page.get_by_text("Je bent afgemeld voor dit event")).to_be_visible()
    card = page.locator("#events").get_by_role("article", name="Sinterklaasduik")
    expect(card.get_by_text("Aangemeld", exact=True)).to_have_count(0)
    expect(card.get_by_role("button", name="Aanmelden")).to_be_visible()
    expect(card).to_contain_text("3 / 10 deelnemers")
    assert not events.participants.filter(user=member).exists()
    assert page.js_errors == []


def test_the_calendar_link_downloads_an_ics_file(page, events):
    sign_in(page, UserFactory())
    page.goto(page.base_url + "/dashboard")

    with page.expect_download() as download_info:
        page.locator("#events").get_by_role("article", name="Sinterklaasduik").get_by_role(
            "link", name="Zet in agenda"
        ).click()

    download = download_info.value
    assert download.suggested_filename == f"sinterklaasduik-{events.pk}.ics"
    body = Path(download.path()).read_bytes()
    assert body.startswith(b"BEGIN:VCALENDAR\r\n")
    assert b"DTSTART;TZID=Europe/Amsterdam:20991205T103000\r\n" in body
