"""Issue 17: feedback paths and the moments that matter, in real Chromium at a phone's and a laptop's width."""

import datetime
import re
import zoneinfo

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.factories import EventFactory, UserFactory

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
WIDTHS = [pytest.param({"width": 390, "height": 844}, id="390"), pytest.param({"width": 1280, "height": 800}, id="1280")]


@pytest.mark.parametrize("viewport", WIDTHS)
def test_the_event_sign_up_message_shows_where_the_member_lands(page, transactional_db, viewport):
    page.set_viewport_size(viewport)
    EventFactory(title="Sinterklaasduik", event_date=datetime.datetime(2099, 12, 5, 10, 30, tzinfo=AMSTERDAM))
    sign_in(page, UserFactory(full_name="Marit Zwemmer"))
    page.goto(page.base_url + "/dashboard")

    page.locator("#events").get_by_role("button", name="Aanmelden").click()

    expect(page).to_have_url(re.compile(r"/dashboard#events$"))
    message = page.get_by_text("Je bent aangemeld voor dit event!")
    expect(message).to_have_count(1)
    expect(message).to_be_visible()
    expect(message).to_be_in_viewport(ratio=1)
    screenshot(page, f"event_message_{viewport['width']}")
