"""In real Chromium: a waiting member gets the freed place offered on the plan list (/samen) and says Ik kom;
a guest signs up through the shared link without an account, confirms with the link in the mail, and the
place count shows them."""

import datetime
import re
import zoneinfo

import pytest
from playwright.sync_api import expect

from apps.events.models import EventGuest
from apps.events.notices import guest_confirm_token
from apps.events.services import event_leave, event_sign_up
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import EventFactory, UserFactory

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")


@pytest.fixture
def sunday(transactional_db):
    return EventFactory(
        title="Zondagduik",
        event_date=datetime.datetime(2099, 12, 6, 11, 0, tzinfo=AMSTERDAM),
        location="Strand Scheveningen",
        max_participants=2,
        open_for_guests=True,
    )


def test_the_waiting_member_takes_the_offered_place(page, sunday):
    first, leaving, waiting, after = UserFactory.create_batch(4)
    for user in (first, leaving, waiting, after):
        event_sign_up(user=user, event_id=sunday.pk)
    event_leave(user=leaving, event_id=sunday.pk)  # the place is offered to `waiting`

    sign_in(page, waiting)
    page.goto(page.base_url + "/samen")
    card = page.get_by_role("article", name="Zondagduik")
    expect(card).to_contain_text(
        re.compile(r"Er is een plek vrij bij Zondagduik: bevestig vóór \w+ \d+ \w+, \d\d:\d\d")
    )
    expect(card).to_contain_text("1 / 2 deelnemers")
    screenshot(page, "offer_on_events")

    card.get_by_role("button", name="Ik kom").click()

    expect(page.get_by_text("Top, je hebt de plek! Je bent aangemeld voor dit event.")).to_be_visible()
    card = page.get_by_role("article", name="Zondagduik")
    expect(card.get_by_text("Je bent aangemeld", exact=True)).to_be_visible()
    expect(card).to_contain_text("2 / 2 deelnemers")
    assert sunday.participants.filter(user=waiting).exists()
    assert page.js_errors == []


def test_a_guest_signs_up_through_the_shared_link(page, sunday):
    page.goto(page.base_url + f"/events/gast/{sunday.guest_token}")
    expect(page.get_by_role("heading", name="Zondagduik")).to_be_visible()
    expect(page.get_by_text("Nog 2 plekken vrij")).to_be_visible()

    page.get_by_role("button", name="Aanmelden als gast").click()
    expect(page.get_by_text("Vul je naam in")).to_be_visible()
    expect(page.get_by_text("Lees de veiligheidsregels en vink aan dat je ermee akkoord gaat.")).to_be_visible()
    screenshot(page, "guest_sign_up_errors")

    page.get_by_label("Naam").fill("Gijs Gast")
    page.get_by_label("E-mailadres").fill("Gijs@Example.nl")
    page.get_by_label("Ik heb de veiligheidsregels gelezen en ga ermee akkoord").check()
    page.get_by_role("button", name="Aanmelden als gast").click()

    expect(page.get_by_text("Bijna klaar! Kijk in je mail")).to_be_visible()
    expect(page.get_by_text("Nog 1 plek vrij")).to_be_visible()  # held for the guest until they confirm
    guest = EventGuest.objects.get(event=sunday)
    assert guest.email == "gijs@example.nl" and guest.confirm_by is not None
    screenshot(page, "guest_signed_up")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll

    page.goto(page.base_url + f"/events/gast/bevestigen/{guest_confirm_token(guest)}")
    page.get_by_role("button", name="Ja, ik doe mee").click()
    expect(page.get_by_text("Je aanmelding is bevestigd: je doet mee als gast.")).to_be_visible()
    screenshot(page, "guest_confirmed")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    guest.refresh_from_db()
    assert guest.confirm_by is None

    sign_in(page, UserFactory())
    page.goto(page.base_url + "/samen")
    expect(page.get_by_role("article", name="Zondagduik")).to_contain_text("1 / 2 deelnemers (waarvan 1 gast)")
    assert page.js_errors == []
