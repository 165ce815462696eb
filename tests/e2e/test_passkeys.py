"""Passkeys in real Chromium with its virtual authenticator (the DevTools WebAuthn domain)."""

from allauth.mfa.models import Authenticator
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.second_factor import MESSAGE_SECOND_FACTOR_REQUIRED
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import DEFAULT_PASSWORD, AdminFactory, UserFactory


def virtual_authenticator(page) -> None:
    """A phone's built-in authenticator that keeps passkeys and verifies its owner (fingerprint, face, pin)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )


def add_passkey(page, name: str) -> None:
    page.goto(page.base_url + "/account")
    page.get_by_role("link", name="Passkey toevoegen").click()
    # A session alone does not add a factor: the password first (or a passkey, once there is one).
    expect(page.get_by_role("heading", name="Bevestig dat jij het bent")).to_be_visible()
    if page.get_by_label("Je wachtwoord").count():
        page.get_by_label("Je wachtwoord").fill(DEFAULT_PASSWORD)
        page.get_by_role("button", name="Bevestigen").click()
    else:
        page.get_by_role("button", name="Bevestigen met je passkey").click()
    page.get_by_label("Naam van de passkey").fill(name)
    expect(page.get_by_label("Inloggen met alleen deze passkey (vingerafdruk, gezicht of pincode)")).to_be_checked()
    screenshot(page, "passkey-add")
    page.get_by_role("button", name="Toevoegen").click()
    page.wait_for_url(lambda url: "/toevoegen" not in url)


def test_register_a_passkey_sign_out_and_sign_in_with_it(page):
    member = UserFactory(full_name="Pim Passkey", email="pim@example.nl")
    virtual_authenticator(page)
    sign_in(page, member)
    add_passkey(page, "Mijn telefoon")
    passkey = Authenticator.objects.get(user=member, type=Authenticator.Type.WEBAUTHN)
    assert passkey.wrap().is_passwordless is True

    page.goto(page.base_url + "/account")
    expect(page.get_by_role("list", name="Je passkeys")).to_contain_text("Mijn telefoon")
    screenshot(page, "passkey-account")

    # Another member cannot touch it by its id.
    other = Client()
    other.force_login(UserFactory())
    other.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD})  # past the password, still not theirs
    assert other.get(f"/account/beveiliging/passkeys/{passkey.pk}/verwijderen").status_code == 404

    page.get_by_role("button", name="Uitloggen").click()
    page.wait_for_url(page.base_url + "/")
    page.goto(page.base_url + "/auth")
    screenshot(page, "passkey-sign-in")
    page.get_by_role("button", name="Inloggen met een passkey").click()
    page.wait_for_url(page.base_url + "/dashboard")
    expect(page.get_by_role("link", name="Ik", exact=True)).to_be_visible()
    assert page.js_errors == []


def test_a_member_removes_a_passkey_on_account(page):
    member = UserFactory()
    virtual_authenticator(page)
    sign_in(page, member)
    add_passkey(page, "Oude telefoon")
    page.goto(page.base_url + "/account")
    page.get_by_role("link", name="Verwijderen (Oude telefoon)").click()
    page.get_by_role("button", name="Verwijderen").click()
    page.wait_for_url(lambda url: "/verwijderen" not in url)
    page.goto(page.base_url + "/account")
    expect(page.get_by_text("Je hebt nog geen passkey.")).to_be_visible()
    assert not Authenticator.objects.filter(user=member).exists()


def test_an_admin_is_stopped_until_a_second_factor_is_set_up(page):
    AdminFactory(email="anna@example.nl", second_factor=False)
    virtual_authenticator(page)
    page.goto(page.base_url + "/admin")
    page.get_by_label("E-mailadres").fill("anna@example.nl")
    page.get_by_label("Wachtwoord", exact=True).fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Inloggen", exact=True).click()

    page.wait_for_url(page.base_url + "/account#tweede-factor")
    expect(page.get_by_text(MESSAGE_SECOND_FACTOR_REQUIRED).first).to_be_visible()
    page.goto(page.base_url + "/django-admin/")
    page.wait_for_url(page.base_url + "/account#tweede-factor")

    add_passkey(page, "Beheer-telefoon")
    page.goto(page.base_url + "/admin")
    expect(page).to_have_url(page.base_url + "/admin")
    page.goto(page.base_url + "/django-admin/")
    expect(page).to_have_url(page.base_url + "/django-admin/")


def test_a_password_sign_in_asks_for_the_passkey_in_plain_dutch_and_a_passkey_only_member_gets_in(page):
    """From a walk: a member with a passkey was asked for an 'authenticatiecode' after the password, and stuck."""
    member = UserFactory(email="pim@example.nl")
    virtual_authenticator(page)
    sign_in(page, member)
    add_passkey(page, "Mijn telefoon")
    page.get_by_role("button", name="Uitloggen").click()
    page.wait_for_url(page.base_url + "/")

    page.goto(page.base_url + "/auth")
    page.get_by_label("E-mailadres").fill("pim@example.nl")
    page.get_by_label("Wachtwoord", exact=True).fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Inloggen", exact=True).click()
    page.wait_for_url(page.base_url + "/auth/tweede-stap")
    expect(page.get_by_role("heading", name="Nog één stap")).to_be_visible()
    expect(page.get_by_text("Laat nu met je passkey zien dat jij het bent")).to_be_visible()
    assert "authenticatiecode" not in page.content().lower()
    screenshot(page, "second-step-passkey")
    page.get_by_role("button", name="Ga verder met je passkey").click()
    page.wait_for_url(page.base_url + "/dashboard")
    expect(page.get_by_role("link", name="Ik", exact=True)).to_be_visible()
    assert page.js_errors == []
