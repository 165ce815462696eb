"""Sign-up from an invitation link, sign-in, sign-out and the redirects, in real Chromium."""

import re

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.invitations.models import Invitation
from tests.e2e.conftest import PHONE, screenshot
from tests.factories import DEFAULT_PASSWORD, AdminFactory, InvitationFactory, UserFactory, totp_code


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    # The live server shares this process's cache: earlier failed logins must not lock anyone out.
    cache.clear()
    yield
    cache.clear()


def current_tab(page):
    return page.locator('.tabs .tab[aria-current="page"]')


def sign_in_by_form(page, email, password):
    page.get_by_label("E-mailadres").fill(email)
    page.get_by_label("Wachtwoord", exact=True).fill(password)
    page.get_by_role("button", name="Inloggen", exact=True).click()


def test_register_from_an_invitation_link_then_sign_in_and_out(page, transactional_db):
    InvitationFactory(code="IJSK0UD1")

    page.goto(page.base_url + "/auth?invite=IJSK0UD1")
    expect(page.get_by_role("heading", name="Koud water challenge")).to_be_visible()
    expect(page.get_by_text("Begin je ijskoude avontuur")).to_be_visible()
    expect(current_tab(page)).to_have_text("Registreren")
    expect(page.get_by_label("Uitnodigingscode")).to_have_value("IJSK0UD1")
    screenshot(page, "auth_register_from_invitation")

    page.get_by_label("Naam").fill("Ijsbeer Ingrid")
    page.get_by_label("E-mailadres").fill("ingrid@example.nl")
    page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
    page.get_by_label("Ja, ik ontvang graag de nieuwsbrief").check()
    page.get_by_role("button", name="Registreren").click()

    expect(page.get_by_text("Account aangemaakt! Je kunt nu inloggen.")).to_be_visible()
    expect(current_tab(page)).to_have_text("Inloggen")
    expect(page.get_by_label("E-mailadres")).to_have_value("ingrid@example.nl")
    user = User.objects.get(email="ingrid@example.nl")
    assert user.newsletter_consent is True
    assert Invitation.objects.get(code="IJSK0UD1").used_by == user

    page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
    page.get_by_role("button", name="Inloggen", exact=True).click()
    expect(page).to_have_url(page.base_url + "/dashboard")
    expect(page.get_by_role("heading", name="Welkom, Ijsbeer Ingrid!")).to_be_visible()

    # A signed-in member who opens /auth lands on the dashboard.
    page.goto(page.base_url + "/auth")
    expect(page).to_have_url(page.base_url + "/dashboard")

    page.get_by_role("button", name="Uitloggen").click()
    expect(page).to_have_url(page.base_url + "/")
    page.goto(page.base_url + "/dashboard")
    expect(page).to_have_url(page.base_url + "/auth?next=/dashboard")
    assert page.js_errors == []


def test_a_used_invitation_is_refused_and_the_typed_values_stay(page, transactional_db):
    InvitationFactory(code="GEBRU1KT", used_at="2026-01-01T00:00:00Z")
    page.goto(page.base_url + "/auth?invite=GEBRU1KT")
    page.get_by_label("Naam").fill("Late Lotte")
    page.get_by_label("E-mailadres").fill("lotte@example.nl")
    page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
    page.get_by_role("button", name="Registreren").click()

    expect(page.get_by_text("Deze uitnodigingscode is al gebruikt")).to_be_visible()
    expect(current_tab(page)).to_have_text("Registreren")
    expect(page.get_by_label("Naam")).to_have_value("Late Lotte")
    expect(page.get_by_label("E-mailadres")).to_have_value("lotte@example.nl")
    expect(page.get_by_label("Wachtwoord", exact=True)).to_have_value("")
    assert not User.objects.filter(email="lotte@example.nl").exists()


def test_an_empty_code_gives_the_dutch_message(page, transactional_db):
    page.goto(page.base_url + "/auth?tab=registreren")
    page.get_by_label("Naam").fill("Zonder Code")
    page.get_by_label("E-mailadres").fill("zonder@example.nl")
    page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
    page.get_by_role("button", name="Registreren").click()
    expect(page.get_by_text("Een uitnodigingscode is verplicht om te registreren")).to_be_visible()


def test_a_wrong_password_shows_the_error_and_keeps_the_address(page, transactional_db):
    UserFactory(email="marit@example.nl")
    page.goto(page.base_url + "/auth")
    expect(current_tab(page)).to_have_text("Inloggen")
    sign_in_by_form(page, "marit@example.nl", "helemaal-fout")

    expect(page.get_by_role("alert")).to_have_text(
        "Het door jou opgegeven e-mailadres en/of wachtwoord is niet correct."
    )
    expect(page.get_by_label("E-mailadres")).to_have_value("marit@example.nl")
    expect(page.get_by_label("Wachtwoord", exact=True)).to_have_value("")
    screenshot(page, "auth_wrong_password")

    sign_in_by_form(page, "marit@example.nl", DEFAULT_PASSWORD)
    expect(page).to_have_url(page.base_url + "/dashboard")


def test_anonymous_visitors_go_to_auth_and_come_back_after_sign_in(page, transactional_db):
    AdminFactory(email="anna@example.nl")
    for path in ["/dashboard", "/challenge", "/admin"]:
        page.goto(page.base_url + path)
        expect(page).to_have_url(page.base_url + "/auth?next=" + path)

    sign_in_by_form(page, "anna@example.nl", DEFAULT_PASSWORD)
    # An admin has a second factor: the code of the authenticator app, then on to where she was going.
    expect(page.get_by_role("heading", name="Nog één stap")).to_be_visible()
    page.get_by_label("Code uit je app of herstelcode").fill(totp_code())
    page.get_by_role("button", name="Inloggen").click()
    expect(page).to_have_url(page.base_url + "/admin")


def test_a_member_without_admin_rights_is_sent_to_the_dashboard(page, transactional_db):
    UserFactory(email="marit@example.nl")
    page.goto(page.base_url + "/admin")
    sign_in_by_form(page, "marit@example.nl", DEFAULT_PASSWORD)
    expect(page).to_have_url(page.base_url + "/dashboard")
    expect(page.get_by_text("Je hebt geen admin rechten")).to_be_visible()


def test_the_tabs_and_forms_work_without_javascript(browser, live_server, transactional_db):
    InvitationFactory(code="ZONDERJS")
    context = browser.new_context(viewport=PHONE, locale="nl-NL", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/auth")
        page.get_by_role("link", name="Registreren").click()
        expect(page).to_have_url(re.compile(r"/auth\?tab=registreren$"))
        page.get_by_label("Uitnodigingscode").fill("zonderjs")
        page.get_by_label("Naam").fill("Geen Script")
        page.get_by_label("E-mailadres").fill("script@example.nl")
        page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
        page.get_by_role("button", name="Registreren").click()
        expect(page.get_by_text("Account aangemaakt! Je kunt nu inloggen.")).to_be_visible()
        page.get_by_label("Wachtwoord", exact=True).fill("brrr-koud")
        page.get_by_role("button", name="Inloggen", exact=True).click()
        expect(page).to_have_url(live_server.url + "/dashboard")
    finally:
        context.close()


def test_forgotten_password_link_leads_to_the_dutch_reset_page(page, transactional_db):
    page.goto(page.base_url + "/auth")
    page.get_by_role("link", name="Wachtwoord vergeten?").click()
    expect(page.get_by_role("heading", name="Wachtwoord vergeten?")).to_be_visible()
    page.get_by_label("E-mailadres").fill("niemand@example.nl")
    page.get_by_role("button", name="Stuur de herstellink").click()
    expect(page.get_by_role("heading", name="Kijk in je mailbox")).to_be_visible()
