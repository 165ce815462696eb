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

    page.locator("#samen").get_by_role("button", name="Aanmelden").click()

    expect(page).to_have_url(re.compile(r"/dashboard#samen$"))
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
    from apps.challenges.services.cards import challenge_start
    from apps.challenges.services.dips import dip_register
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


def _waterdieren_card(member, dips: int):
    """A Waterdieren card with `dips` dips and the badges they earned, written directly (fast for 99)."""
    from apps.challenges.models import Badge, Challenge, Dip, UserBadge, UserChallenge

    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = UserChallenge.objects.create(user=member, challenge=challenge, challenge_type="waterdieren")
    Dip.objects.bulk_create(
        [Dip(user=member, user_challenge=card, number=n, dip_date="2026-11-01") for n in range(1, dips + 1)]
    )
    for badge in Badge.objects.filter(challenge=challenge, milestone_dips__lte=dips):
        UserBadge.objects.create(user=member, badge=badge, user_challenge=card)
    return card


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("viewport", WIDTHS)
def test_the_challenge_page_photo_preview_next_badge_message_and_milestone(page, transactional_db, viewport, tmp_path):
    from tests.challenges.photo_samples import image_bytes

    page.set_viewport_size(viewport)
    member = UserFactory(full_name="Wieke Water")
    _waterdieren_card(member, 9)
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    expect(page.get_by_text("Nog 1 plons tot de Kikker")).to_be_visible()

    # A real thumbnail of the chosen photo, and a way to remove it.
    photo = tmp_path / "zee.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(640, 480)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    preview = page.get_by_role("img", name="Voorbeeld van je foto")
    expect(preview).to_be_visible()
    assert preview.evaluate("img => img.decode().then(() => img.naturalWidth)") == 640
    page.get_by_role("button", name="Foto weghalen").click()
    expect(preview).to_have_count(0)

    # A file that is no photo: said at once, no broken image.
    document = tmp_path / "rooster.pdf"
    document.write_bytes(b"%PDF-1.4 not a photo")
    page.get_by_label("Foto (optioneel)").set_input_files(str(document))
    expect(page.get_by_role("alert")).to_contain_text("Dit bestand is geen foto.")
    expect(page.get_by_role("img", name="Voorbeeld van je foto")).to_have_count(0)

    # The tenth dip: the Kikker is the centre of the moment; the one message is on the screen, off the button.
    page.get_by_role("button", name="Plons registreren").click()
    celebration = page.get_by_test_id("celebration")
    art = celebration.locator("img.kw-celebration__badge")
    expect(art).to_be_visible()
    assert art.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0
    assert art.evaluate("img => img.offsetWidth") >= 150  # its laid-out size; the card itself zooms in
    expect(celebration).to_contain_text("Kikker")
    expect(celebration).to_contain_text("10 plonsen")
    screenshot(page, f"challenge_milestone_{viewport['width']}")
    message = page.locator(".sc-message .message")
    expect(message).to_have_text("Badge verdiend: Kikker!")
    expect(message).to_have_count(1)
    button = page.get_by_role("button", name="Plons registreren")
    assert not _overlap(message.bounding_box(), button.bounding_box())
    expect(message).to_be_in_viewport(ratio=1)  # issue 28 §3: where the member looks
    expect(page.get_by_text("Nog 15 plonsen tot de Meerkoet")).to_be_visible()
    expect(celebration).to_have_count(0, timeout=10_000)  # gone after its 3 s
    assert page.js_errors == []


@pytest.mark.parametrize("viewport", WIDTHS)
def test_the_stop_confirmation_keeps_the_focus_and_closes_on_escape_and_annuleren(page, transactional_db, viewport):
    page.set_viewport_size(viewport)
    member = UserFactory()
    card = _waterdieren_card(member, 3)
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    stop = page.get_by_role("link", name="Challenge Stoppen")
    primary = page.get_by_role("button", name="Plons registreren")
    # Quiet: smaller than the main action and after it on the page.
    assert stop.bounding_box()["y"] > primary.bounding_box()["y"]

    stop.click()
    dialog = page.get_by_role("dialog", name="Challenge stoppen?")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("link", name="Annuleren")).to_be_focused()
    for _ in range(4):  # the focus stays inside the dialog
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('stop-confirm').contains(document.activeElement)")
    screenshot(page, f"stop_confirmation_{viewport['width']}")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(stop).to_be_focused()

    stop.click()
    dialog.get_by_role("link", name="Annuleren").click()
    expect(dialog).to_be_hidden()
    expect(stop).to_be_focused()
    assert page.url.endswith("/challenge")

    stop.click()
    dialog.get_by_role("button", name="Ja, stop en verwijder").click()
    page.wait_for_url("**/dashboard")
    from apps.challenges.models import UserChallenge

    assert not UserChallenge.objects.filter(pk=card.pk).exists()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_completion_is_one_calm_summary_and_the_trophy_cannot_be_stopped(page, transactional_db, viewport):
    page.set_viewport_size(viewport)
    member = UserFactory(full_name="Wieke Water")
    _waterdieren_card(member, 99)
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")

    page.get_by_role("button", name="Plons registreren").click()
    heading = page.get_by_role("heading", name="Challenge Voltooid!")
    expect(heading).to_be_focused()
    celebration = page.get_by_test_id("celebration")
    expect(celebration).to_contain_text("Gefeliciteerd!")
    expect(celebration).to_contain_text("IJsvogel")
    screenshot(page, f"challenge_completion_{viewport['width']}")
    expect(page.locator(".message")).to_have_count(1)
    expect(page.locator(".message")).to_have_text("Waterdieren Stempelkaart voltooid! Alle badges verzameld!")
    expect(page.get_by_text("Challenge Stoppen")).to_have_count(0)
    summary = page.locator("section", has=heading)
    expect(summary).to_contain_text("Alle 6 badges verzameld")
    expect(summary.get_by_role("listitem")).to_have_count(6)
    expect(celebration).to_have_count(0, timeout=10_000)
    screenshot(page, f"challenge_completed_{viewport['width']}")

    page.reload()
    expect(page.get_by_role("heading", name="Challenge Voltooid!")).to_be_visible()
    expect(page.get_by_text("Challenge Stoppen")).to_have_count(0)


@pytest.mark.parametrize("viewport", WIDTHS)
def test_dashboard_screenshot(page, transactional_db, viewport):
    page.set_viewport_size(viewport)
    member = UserFactory(full_name="Wieke Water")
    _waterdieren_card(member, 12)
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    expect(page.get_by_role("heading", name=re.compile("Je verdiende badges"))).to_be_visible()
    assert no_sideways_scroll(page)
    screenshot(page, f"dashboard_{viewport['width']}")


def test_switching_the_auth_tabs_puts_the_keyboard_on_the_first_field(page, transactional_db):
    page.goto(page.base_url + "/auth")
    page.get_by_role("link", name="Registreren").click()
    expect(page.get_by_label("Uitnodigingscode")).to_be_focused()
    page.get_by_role("link", name="Inloggen").click()
    expect(page.get_by_label("E-mailadres")).to_be_focused()
