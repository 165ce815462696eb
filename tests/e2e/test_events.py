"""Sign up for an event and cancel again, in real Chromium, without any JavaScript of ours."""

import datetime
import re
import zoneinfo
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
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
    section = page.locator("#samen")  # the plans block: events and afspraken in one list
    expect(section.get_by_role("heading", name="Wie gaat er plonsen?")).to_be_visible()
    card = section.get_by_role("article", name="Sinterklaasduik")
    expect(card).to_contain_text("zaterdag 5 december 2099, 10:30")
    expect(card).to_contain_text("Strand Scheveningen, bij de pier")
    expect(card).to_contain_text("3 / 10 deelnemers")
    expect(
        section.get_by_role("article", name="Volle maan plons").get_by_role("button", name="Zet me op de wachtlijst")
    ).to_be_enabled()
    screenshot(page, "events_dashboard_before")

    card.get_by_role("button", name="Aanmelden").click()

    expect(page).to_have_url(re.compile(r"/dashboard#samen$"))
    expect(page.get_by_text("Je bent aangemeld voor dit event!")).to_be_visible()
    card = page.locator("#samen").get_by_role("article", name="Sinterklaasduik")
    expect(card.get_by_text("Je bent aangemeld", exact=True)).to_be_visible()
    expect(card).to_contain_text("4 / 10 deelnemers")
    assert events.participants.filter(user=member).exists()
    screenshot(page, "events_dashboard_joined")
    screenshot(page.locator("#samen"), "events_section_joined")

    card.get_by_role("button", name="Afmelden").click()

    expect(page.get_by_text("Je bent afgemeld voor dit event")).to_be_visible()
    card = page.locator("#samen").get_by_role("article", name="Sinterklaasduik")
    expect(card.get_by_text("Je bent aangemeld", exact=True)).to_have_count(0)
    expect(card.get_by_role("button", name="Aanmelden")).to_be_visible()
    expect(card).to_contain_text("3 / 10 deelnemers")
    assert not events.participants.filter(user=member).exists()
    assert page.js_errors == []


def test_the_calendar_link_downloads_an_ics_file(page, events):
    sign_in(page, UserFactory())
    page.goto(page.base_url + f"/events/{events.pk}")  # the event's own page (the list links there)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Zet in agenda").click()

    download = download_info.value
    assert download.suggested_filename == f"sinterklaasduik-{events.pk}.ics"
    body = Path(download.path()).read_bytes()
    assert body.startswith(b"BEGIN:VCALENDAR\r\n")
    assert b"DTSTART;TZID=Europe/Amsterdam:20991205T103000\r\n" in body


def test_the_waitlist_and_the_calendar_subscription_on_events(page, events):
    """A full event on the plan list (/samen): on the waitlist with my place, a place frees up and is offered to
    me; then the private calendar link, renewed, serves the event I joined."""
    from apps.events.models import Event
    from apps.events.services import event_leave

    member = UserFactory(full_name="Wendy Wachter")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("link", name="Alle plannen, je agenda-link en een plonsafspraak maken").click()
    expect(page).to_have_url(re.compile(r"/samen$"))

    full = Event.objects.get(title="Volle maan plons")
    card = page.get_by_role("article", name="Volle maan plons")
    expect(card).to_contain_text("2 / 2 deelnemers · vol")
    card.get_by_role("button", name="Zet me op de wachtlijst").click()

    expect(page.get_by_text("Dit event is vol. Je staat op de wachtlijst (plek 1).")).to_be_visible()
    card = page.get_by_role("article", name="Volle maan plons")
    expect(card.get_by_text("Je staat op de wachtlijst (plek 1)")).to_be_visible()
    expect(card.get_by_role("button", name="Van de wachtlijst af")).to_be_visible()
    screenshot(page, "events_waitlist")

    # A place frees up: it is offered to me first ("Ik kom" makes it mine; issue 27).
    event_leave(user=full.participants.first().user, event_id=full.pk)
    page.reload()
    card = page.get_by_role("article", name="Volle maan plons")
    expect(card.get_by_text("Er is een plek vrij bij Volle maan plons: bevestig vóór")).to_be_visible()
    card.get_by_role("button", name="Ik kom").click()
    card = page.get_by_role("article", name="Volle maan plons")
    expect(card.get_by_text("Je bent aangemeld", exact=True)).to_be_visible()
    expect(card.get_by_role("button", name="Afmelden")).to_be_visible()

    page.get_by_role("button", name="Maak mijn agenda-link").click()
    link = page.get_by_label("Link voor Google Agenda of Outlook (toevoegen via URL)")
    first = link.input_value()
    assert re.fullmatch(r"http://[^/]+/agenda/[A-Za-z0-9_-]{43}\.ics", first), first
    webcal = page.get_by_role("link", name="Abonneer in je agenda").get_attribute("href")
    assert webcal == "webcal://" + first.split("://", 1)[1]
    page.get_by_role("button", name="Vernieuw link").click()
    expect(page.get_by_text("Je nieuwe agenda-link staat klaar. De oude link werkt niet meer.")).to_be_visible()
    second = page.get_by_label("Link voor Google Agenda of Outlook (toevoegen via URL)").input_value()
    assert second != first

    feed = page.request.get(second)
    assert feed.status == 200 and b"SUMMARY:Volle maan plons" in feed.body()
    assert page.request.get(first).status == 404
    assert page.js_errors == []
