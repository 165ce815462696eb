"""Issue 15 in real Chromium: charts and Excel on /admin, a physical badge marked sent and seen by its
member, and a challenge made in the Django admin with an uploaded badge image and started by a member."""

import datetime
import io
from pathlib import Path

import openpyxl
import pytest
from PIL import Image

from apps.challenges.models import Challenge, UserBadge
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import AdminFactory, DipFactory, UserBadgeFactory, UserChallengeFactory, UserFactory

DESKTOP = {"width": 1280, "height": 900}


def shoot(page, name: str) -> None:
    screenshot(page, f"insights-{name}-{page.viewport_size['width']}")


def new_page_for(page, user, viewport=None):
    context = page.context.browser.new_context(
        viewport=viewport or page.viewport_size, locale="nl-NL", timezone_id="Europe/Amsterdam", accept_downloads=True
    )
    other = context.new_page()
    other.set_default_timeout(10_000)
    other.base_url = page.base_url
    sign_in(other, user)
    return other


@pytest.fixture
def club(page):
    admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
    member = UserFactory(full_name="Marit Zwemmer", email="marit@example.nl", newsletter_consent=True)
    # The Waterdieren card: its stamp card lists the badges (with their physical status).
    card = UserChallengeFactory(user=member, challenge=Challenge.objects.get(name="Waterdieren Stempelkaart"))
    for number in range(1, 6):
        DipFactory(
            user_challenge=card, number=number, dip_date=datetime.date.today() - datetime.timedelta(days=3 * number)
        )
    award = UserBadgeFactory(user_challenge=card, badge=card.challenge.badges.get(milestone_dips=5))
    return admin, member, award


def test_charts_are_visible_and_excel_files_open(page, club):
    admin, _member, _award = club
    for viewport in (None, DESKTOP):
        admin_page = new_page_for(page, admin, viewport)
        admin_page.goto(page.base_url + "/admin")
        for title in ["Plonsen per week", "Actieve leden per week", "Nieuwe leden per maand"]:
            chart = admin_page.get_by_role("img", name=title)
            chart.scroll_into_view_if_needed()
            assert chart.is_visible()
            assert chart.bounding_box()["height"] > 80
        assert admin_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shoot(admin_page, "admin")
        admin_page.context.close()

    admin_page = new_page_for(page, admin)
    admin_page.goto(page.base_url + "/admin")
    newsletter = admin_page.get_by_role("region", name="Nieuwsbrief beheer")
    with admin_page.expect_download() as info:
        newsletter.get_by_role("link", name="Exporteer Excel").click()
    assert info.value.suggested_filename.endswith(".xlsx")
    sheet = openpyxl.load_workbook(io.BytesIO(Path(info.value.path()).read_bytes())).active
    assert [c.value for c in sheet[1]] == ["Email", "Naam", "Aangemeld op"]
    assert sheet["A2"].value == "marit@example.nl" and sheet["C2"].is_date

    users = admin_page.get_by_role("region", name="Gebruikersbeheer")
    with admin_page.expect_download() as info:
        users.get_by_role("link", name="Exporteer Excel").click()
    rows = {
        row[0]: row
        for row in openpyxl.load_workbook(io.BytesIO(Path(info.value.path()).read_bytes())).active.iter_rows(
            values_only=True
        )
    }
    assert rows["marit@example.nl"][3:5] == (5, 1)
    admin_page.context.close()


def test_a_badge_marked_sent_is_seen_by_its_member(page, club):
    admin, member, award = club
    member_page = new_page_for(page, member)
    member_page.goto(page.base_url + "/account")
    member_page.get_by_label("Straat en huisnummer").fill("Strandweg 1")
    member_page.get_by_label("Postcode").fill("2042 ab")
    member_page.get_by_label("Plaats").fill("Zandvoort")
    member_page.get_by_role("button", name="Adres opslaan").click()
    member_page.get_by_text("Je postadres is opgeslagen.").wait_for()
    shoot(member_page, "account-address")

    admin_page = new_page_for(page, admin)
    admin_page.goto(page.base_url + "/admin")
    admin_page.get_by_role("link", name="Te versturen", exact=True).click()
    admin_page.wait_for_url(page.base_url + "/admin/fysieke-badges/?status=te_versturen")
    section = admin_page.get_by_role("region", name="Verzendlijst")
    section.get_by_text("Strandweg 1, 2042 AB Zandvoort").wait_for()
    section.get_by_label("Marit Zwemmer").check()
    section.get_by_label("Nieuwe status").select_option(label="Verstuurd")
    section.get_by_role("button", name="Markeren").click()
    admin_page.get_by_text("1 badge gemarkeerd als: verstuurd.").wait_for()
    shoot(admin_page, "admin-physical")
    assert UserBadge.objects.get(pk=award.pk).physical_status == "verstuurd"

    today = datetime.date.today()
    months = [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ]
    expected = f"Fysieke badge verstuurd op {today.day} {months[today.month - 1]} {today.year}"
    member_page.goto(page.base_url + "/dashboard")
    member_page.get_by_text(expected).wait_for()
    member_page.goto(page.base_url + "/challenge")
    member_page.get_by_text(expected).first.wait_for()
    shoot(member_page, "member-badge-sent")
    wide = new_page_for(page, member, DESKTOP)
    for path in ("/dashboard", "/account"):
        wide.goto(page.base_url + path)
        shoot(wide, path.strip("/"))
    wide.context.close()
    admin_page.set_viewport_size(DESKTOP)
    shoot(admin_page, "admin-physical")


def test_a_challenge_made_with_an_uploaded_badge_is_started_by_a_member(page, club, tmp_path):
    admin, _member, _award = club
    art = tmp_path / "zeehond.png"
    Image.new("RGBA", (300, 300), (20, 120, 200, 200)).save(art)
    admin_page = new_page_for(page, admin, DESKTOP)
    admin_page.goto(page.base_url + "/admin")
    admin_page.get_by_role("link", name="Nieuwe challenge").click()
    admin_page.locator("#id_name").fill("Zeehondenplons")  # the badges below have a "Naam:" of their own
    admin_page.get_by_label("Categorie:").select_option(label="Bijzondere Challenge")
    admin_page.get_by_label("Doel (plonsen):").fill("3")
    admin_page.locator("input[name='badges-0-milestone_dips']").fill("3")
    admin_page.locator("input[name='badges-0-name']").fill("Zeehond")
    admin_page.locator("input[name='badges-0-image_upload']").set_input_files(str(art))
    admin_page.get_by_role("button", name="Opslaan", exact=True).click()
    admin_page.get_by_text("is met succes toegevoegd").wait_for()
    shoot(admin_page, "django-admin-challenge")
    badge = Challenge.objects.get(name="Zeehondenplons").badges.get()
    assert badge.image_url.startswith("/badge-art/")

    newcomer = UserFactory(full_name="Nina Nieuw")
    member_page = new_page_for(page, newcomer)
    member_page.goto(page.base_url + "/dashboard")
    offer = member_page.locator("article", has_text="Zeehondenplons")
    offer.get_by_role("button", name="Start challenge").click()
    member_page.wait_for_url("**/challenge")
    member_page.get_by_text("Zeehondenplons").first.wait_for()
    image = member_page.locator(f"img[src='{badge.image_url}']").first
    image.wait_for()
    # The art has loaded and decoded (waited for as a state: on a busy machine it comes after the element).
    member_page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    shoot(member_page, "member-started-challenge")
    image_bytes = member_page.request.get(page.base_url + badge.image_url).body()
    assert Image.open(io.BytesIO(image_bytes)).format == "PNG"
