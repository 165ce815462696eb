"""Issue 17: feedback paths and the moments that matter, in real Chromium at a phone's and a laptop's width."""

import datetime
import re
import zoneinfo

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.factories import EventFactory, UserFactory

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
WIDTHS = [
    pytest.param({"width": 390, "height": 844}, id="390"),
    pytest.param({"width": 1280, "height": 800}, id="1280"),
]


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


def _jpeg() -> bytes:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.new("RGB", (64, 64), (20, 120, 180)).save(buffer, "JPEG")
    return buffer.getvalue()


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("viewport", WIDTHS)
def test_the_admin_screen_on_a_phone_and_a_laptop(page, transactional_db, viewport):
    from apps.challenges.models import Challenge
    from apps.challenges.photos import ProcessedPhoto
    from apps.challenges.services import challenge_start, dip_register
    from tests.factories import AdminFactory, InvitationFactory

    page.set_viewport_size(viewport)
    admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
    nina = UserFactory(full_name="Nina Nieuwenhuizen-Vermeulen", email="nina@example.nl", newsletter_consent=True)
    challenge_start(user=nina, challenge_id=Challenge.objects.get(target_dips=5).pk)
    dip_register(user=nina, photo=ProcessedPhoto(full=_jpeg(), thumbnail=_jpeg()))
    InvitationFactory(code="GEBRUIKT", invited_by=admin, used_by=nina, used_at=datetime.datetime.now(AMSTERDAM))
    InvitationFactory(code="ACTIEF01", invited_by=admin)
    sign_in(page, admin)
    page.goto(page.base_url + "/admin")

    # Used codes offer nothing to copy or share; active ones do.
    used = page.locator("tr", has_text="GEBRUIKT")
    expect(used.get_by_role("button", name="Verwijder")).to_be_visible()
    expect(used.get_by_role("button", name=re.compile("Kopieer link"))).to_have_count(0)
    expect(used.get_by_role("link", name=re.compile("Deel"))).to_have_count(0)
    expect(
        page.locator("tr", has_text="ACTIEF01").get_by_role("button", name=re.compile("Kopieer link"))
    ).to_be_visible()

    # The collage shows the whole name.
    page.get_by_role("button", name="Foto's laden").click()
    name = page.locator(".adm-photo-name", has_text="Nina Nieuwenhuizen-Vermeulen")
    expect(name).to_be_visible()
    assert name.evaluate("el => el.scrollWidth <= el.clientWidth"), "the name is cut off"

    # Users: cards on a phone, a table on a laptop; the reason the own delete is off is on the screen.
    page.get_by_role("button", name="Gebruikers laden").click()
    own = page.get_by_role("row", name=re.compile("anna@example.nl"))
    expect(own.get_by_text("Je kunt je eigen account niet verwijderen.")).to_be_visible()
    row_display = own.evaluate("el => getComputedStyle(el).display")
    assert row_display == ("block" if viewport["width"] < 1152 else "table-row")
    assert no_sideways_scroll(page)
    screenshot(page, f"admin_users_{viewport['width']}")

    # Deleting Nina changes every number: users, active challenges, dips and subscribers.
    stats = page.locator(".stat-card")
    expect(stats.filter(has_text="Totaal gebruikers")).to_contain_text("2")
    expect(stats.filter(has_text="Totaal plonsen")).to_contain_text("1")
    expect(page.get_by_text("1 abonnee op de nieuwsbrief.")).to_be_visible()
    page.get_by_role("row", name=re.compile("nina@example.nl")).get_by_role("button", name="Verwijder").click()
    page.get_by_role("dialog").get_by_role("button", name="Verwijderen").click()
    expect(page.get_by_text("Gebruiker verwijderd").first).to_be_visible()
    expect(stats.filter(has_text="Totaal gebruikers").locator(".stat-value")).to_have_text("1")
    expect(stats.filter(has_text="Actieve challenges").locator(".stat-value")).to_have_text("0")
    expect(stats.filter(has_text="Totaal plonsen").locator(".stat-value")).to_have_text("0")
    expect(page.get_by_text("0 abonnees op de nieuwsbrief.")).to_be_visible()

    # Without subscribers the export says so on the page, and saves no file.
    downloads = []
    page.on("download", lambda download: downloads.append(download))
    page.get_by_role("button", name="Exporteer CSV").click()
    expect(page.get_by_text("Geen nieuwsbrief abonnees gevonden").first).to_be_visible()
    assert downloads == []
    # Chromium logs the export's JSON 404 ('no subscribers') as a failed resource; nothing else may fail.
    assert [error for error in page.js_errors if "status of 404" not in error] == []
