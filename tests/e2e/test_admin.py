"""The admin screen in real Chromium: invitations, the CSV export, and the users table."""

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.invitations.models import Invitation
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import AdminFactory, UserFactory


@pytest.fixture
def admin_page(page):
    admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=page.base_url)
    sign_in(page, admin)
    page.goto(page.base_url + "/admin")
    page.admin = admin
    return page


def test_single_invitation_copy_its_link_and_delete_it(admin_page):
    page = admin_page
    page.get_by_label("E-mailadres (optioneel)").fill("nieuw@example.nl")
    page.get_by_role("button", name="Uitnodiging aanmaken").click()
    page.get_by_text("Uitnodiging aangemaakt!").first.wait_for()
    invitation = Invitation.objects.get(email="nieuw@example.nl")
    row = page.get_by_role("row", name=invitation.code).or_(page.locator("li", has_text=invitation.code)).first
    row.wait_for()

    row.get_by_role("button", name="Kopieer link").click()
    page.get_by_text("Link gekopieerd!").first.wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{page.base_url}/auth?invite={invitation.code}"
    share = row.get_by_role("link", name="Deel")
    assert "wa.me/?text=" in share.get_attribute("href") and invitation.code in share.get_attribute("href")

    row.get_by_role("button", name="Verwijder").click()
    page.get_by_role("dialog").get_by_role("button", name="Verwijderen").click()
    page.get_by_text("Uitnodiging verwijderd").first.wait_for()
    assert not Invitation.objects.filter(pk=invitation.pk).exists()
    assert page.js_errors == []


def test_bulk_invitations_from_pasted_text(admin_page):
    page = admin_page
    UserFactory(email="al.lid@example.nl")
    page.get_by_label("E-mailadressen (plak vrije tekst)").fill(
        "Jan <jan@example.nl>, PIET@example.nl; al.lid@example.nl en nog wat tekst"
    )
    page.get_by_role("button", name="Bulk uitnodigen").click()
    page.get_by_text("2 uitnodigingen aangemaakt.").first.wait_for()
    page.get_by_text("al.lid@example.nl").first.wait_for()
    assert sorted(Invitation.objects.values_list("email", flat=True)) == ["jan@example.nl", "piet@example.nl"]


def test_export_the_newsletter_csv(admin_page):
    page = admin_page
    UserFactory(email="abonnee@example.nl", full_name="Abby Abonnee", newsletter_consent=True)
    page.reload()
    with page.expect_download() as info:
        page.get_by_role("button", name="Exporteer CSV").click()
    download = info.value
    assert download.suggested_filename.startswith("nieuwsbrief-abonnees-") and download.suggested_filename.endswith(
        ".csv"
    )
    content = open(download.path(), "rb").read()
    assert content.startswith(b"\xef\xbb\xbfEmail,Naam,Aangemeld op\r\nabonnee@example.nl,Abby Abonnee,")
    page.get_by_text("CSV gedownload").first.wait_for()


def test_load_users_and_delete_one_but_not_yourself(admin_page):
    page = admin_page
    UserFactory(email="weg@example.nl", full_name="Willem Weg")
    page.get_by_role("button", name="Gebruikers laden").click()
    own_row = page.get_by_role("row", name="anna@example.nl")
    own_row.wait_for()
    assert own_row.get_by_role("button", name="Verwijder").is_disabled()

    page.get_by_label("Zoek gebruikers").fill("willem")
    row = page.get_by_role("row", name="weg@example.nl")
    # The server answers the search after a pause in typing: wait for its rows.
    expect(page.get_by_role("row", name="anna@example.nl")).to_have_count(0)
    row.get_by_role("button", name="Verwijder").click()
    page.get_by_role("dialog").get_by_role("button", name="Verwijderen").click()
    page.get_by_text("Gebruiker verwijderd").first.wait_for()
    assert not User.objects.filter(email="weg@example.nl").exists()
    assert User.objects.filter(pk=page.admin.pk).exists()


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_an_admin_makes_a_member_organiser_on_the_users_table(admin_page, width):
    page = admin_page
    page.set_viewport_size({"width": width, "height": 844})
    UserFactory(email="olga.organisator-van-de-zondagsduik@example.nl", full_name="Olga Organisator")
    page.get_by_role("button", name="Gebruikers laden").click()
    row = page.get_by_role("row", name="olga.organisator-van-de-zondagsduik@example.nl")
    row.get_by_role("button", name="Maak organisator").click()
    dialog = page.get_by_role("dialog", name="Organisator maken?")
    expect(dialog).to_contain_text("passkey of authenticator-app nodig")
    screenshot(page, f"admin_users_organiser_dialog_{width}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    dialog.get_by_role("button", name="Maak organisator").click()
    page.get_by_text("Olga Organisator is nu organisator.").first.wait_for()
    expect(row.get_by_text("Organisator", exact=True)).to_be_visible()
    assert User.objects.get(full_name="Olga Organisator").has_organiser_role
    screenshot(page, f"admin_users_organiser_{width}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    row.get_by_role("button", name="Geen organisator meer").click()
    expect(row.get_by_text("Organisator", exact=True)).to_have_count(0)
    assert not User.objects.get(full_name="Olga Organisator").has_organiser_role
    assert page.js_errors == []


@pytest.mark.parametrize(
    "viewport",
    [pytest.param({"width": 390, "height": 844}, id="390"), pytest.param({"width": 1280, "height": 800}, id="1280")],
)
def test_the_users_table_pages_and_sorts_through_the_server(admin_page, viewport):
    page = admin_page
    page.set_viewport_size(viewport)
    User.objects.bulk_create(
        User(email=f"lid{n:03d}@example.nl", full_name=f"Lid {n:03d}", dip_count=n % 9) for n in range(120)
    )
    top = UserFactory(email="kampioen@example.nl", full_name="Karin Kampioen")
    User.objects.filter(pk=top.pk).update(dip_count=250)
    page.get_by_role("button", name="Gebruikers laden").click()
    expect(page.get_by_text("100+ gebruikers")).to_be_visible()
    # The users table's rows only: the page also holds the charts' tables and the physical badges list.
    rows = page.locator("#admin-users-root tbody tr")
    expect(rows).to_have_count(100)

    page.get_by_role("button", name="Meer laden").click()
    expect(rows).to_have_count(122)
    expect(page.get_by_text("122 gebruikers")).to_be_visible()
    expect(page.get_by_role("button", name="Meer laden")).to_have_count(0)

    page.get_by_role("button", name="Plonsen").click()
    expect(rows.first).to_contain_text("kampioen@example.nl")
    expect(rows).to_have_count(100)  # a new sort starts again at the first page
    expect(rows.first).to_contain_text("250")
    screenshot(page, f"admin_users_by_dips_{viewport['width']}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.js_errors == []


def test_members_do_not_get_the_admin_screen(page):
    sign_in(page, UserFactory())
    page.goto(page.base_url + "/admin")
    page.wait_for_url("**/dashboard")
    page.get_by_text("Je hebt geen admin rechten").wait_for()
