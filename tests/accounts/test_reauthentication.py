"""One borrowed session is no takeover (issue 22 §2): recovery codes and adding or removing a factor ask for the
password (or a passkey) again, and every check of the current password is rate limited."""

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from django.urls import reverse

from apps.accounts.models import User
from apps.accounts.services import MESSAGE_PASSWORD_WRONG
from apps.accounts.views.profile import MESSAGE_TOO_MANY_CHECKS
from tests.factories import DEFAULT_PASSWORD, TOTP_SECRET

pytestmark = pytest.mark.django_db

REAUTHENTICATE = "/auth/opnieuw/"


@pytest.fixture
def app_member(member):
    """A member with an authenticator app, its recovery codes and a passkey."""
    TOTP.activate(member, TOTP_SECRET)
    RecoveryCodes.activate(member)
    Authenticator.objects.create(user=member, type=Authenticator.Type.WEBAUTHN, data={"name": "Telefoon"})
    return member


def _passkey(member) -> Authenticator:
    return Authenticator.objects.get(user=member, type=Authenticator.Type.WEBAUTHN)


SENSITIVE_PAGES = [
    "mfa_view_recovery_codes",
    "mfa_download_recovery_codes",
    "mfa_generate_recovery_codes",
    "mfa_deactivate_totp",
    "mfa_add_webauthn",
    "mfa_remove_webauthn",
    "mfa_edit_webauthn",
]


def _url(name: str, member) -> str:
    if name in ("mfa_remove_webauthn", "mfa_edit_webauthn"):
        return reverse(name, kwargs={"pk": _passkey(member).pk})
    return reverse(name)


@pytest.mark.parametrize("name", SENSITIVE_PAGES)
def test_a_session_alone_does_not_open_recovery_codes_or_factors(member_client, app_member, name):
    url = _url(name, app_member)
    response = member_client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{REAUTHENTICATE}?next={url.replace('/', '%2F')}"


def test_setting_up_an_app_asks_for_the_password_too(member_client, member):
    response = member_client.get("/account/beveiliging/app/instellen")
    assert response.status_code == 302 and response["Location"].startswith(REAUTHENTICATE)


def test_after_the_password_the_recovery_codes_show_and_the_page_is_dutch(member_client, app_member):
    page = member_client.get(f"{REAUTHENTICATE}?next=/account/beveiliging/herstelcodes").content.decode()
    assert "Bevestig dat jij het bent" in page and "Je wachtwoord" in page
    assert '<html lang="nl">' in page and 'class="site-header"' in page
    # The other way is the passkey; a code from the app is not one (reading the codes is what this guards).
    assert "Liever met je passkey" in page and "authenticator" not in page.lower()
    for script in page.split("<script")[1:]:
        assert ' src="' in script.split(">")[0] or 'type="application/json"' in script.split(">")[0]

    response = member_client.post(
        REAUTHENTICATE, {"password": DEFAULT_PASSWORD, "next": "/account/beveiliging/herstelcodes"}
    )
    assert response.status_code == 302 and response["Location"] == "/account/beveiliging/herstelcodes"
    codes = RecoveryCodes(Authenticator.objects.get(user=app_member, type="recovery_codes")).get_unused_codes()
    assert codes[0] in member_client.get("/account/beveiliging/herstelcodes").content.decode()


# The passkey page itself needs a real credential: tests/e2e/test_passkeys.py confirms with one.


def test_without_a_passkey_the_passkey_page_leads_to_the_password(member_client, member):
    response = member_client.get(f"{REAUTHENTICATE}passkey")
    assert response.status_code == 302 and response["Location"] == REAUTHENTICATE


def test_a_wrong_password_changes_nothing_and_says_so(member_client, app_member):
    response = member_client.post(REAUTHENTICATE, {"password": "fout"})
    assert response.status_code == 200 and MESSAGE_PASSWORD_WRONG in response.content.decode()
    assert member_client.get("/account/beveiliging/herstelcodes").status_code == 302


def test_a_removal_asked_before_the_password_happens_after_it(member_client, app_member):
    """allauth keeps the refused POST and sends it on once the password is given: no second click."""
    url = _url("mfa_remove_webauthn", app_member)
    response = member_client.post(url)
    assert response.status_code == 302 and response["Location"].startswith(REAUTHENTICATE)
    assert Authenticator.objects.filter(user=app_member, type="webauthn").exists()

    member_client.post(REAUTHENTICATE, {"password": DEFAULT_PASSWORD, "next": url})
    assert not Authenticator.objects.filter(user=app_member, type="webauthn").exists()


def test_asking_again_is_rate_limited_with_a_dutch_page(member_client, member):
    for _attempt in range(5):
        assert member_client.post(REAUTHENTICATE, {"password": "fout"}).status_code == 200
    response = member_client.post(REAUTHENTICATE, {"password": DEFAULT_PASSWORD})
    assert response.status_code == 429
    assert "Je hebt dit te vaak achter elkaar geprobeerd" in response.content.decode()
    assert member_client.get("/account/beveiliging/app/instellen").status_code == 302  # still not confirmed


def test_the_current_password_on_the_password_form_is_rate_limited(member_client, member):
    wrong = {"wachtwoord-current_password": "fout", "wachtwoord-new_password": "nog-kouder-water"}
    for _attempt in range(5):
        assert member_client.post("/account/wachtwoord", wrong).status_code == 400
    right = {"wachtwoord-current_password": DEFAULT_PASSWORD, "wachtwoord-new_password": "nog-kouder-water"}
    response = member_client.post("/account/wachtwoord", right)
    assert response.status_code == 429 and MESSAGE_TOO_MANY_CHECKS in response.content.decode()
    member.refresh_from_db()
    assert member.check_password(DEFAULT_PASSWORD)


def test_the_password_to_delete_the_account_is_rate_limited(member_client, member):
    for _attempt in range(5):
        assert member_client.post("/account/verwijderen", {"verwijderen-password": "fout"}).status_code == 400
    response = member_client.post("/account/verwijderen", {"verwijderen-password": DEFAULT_PASSWORD})
    assert response.status_code == 429 and MESSAGE_TOO_MANY_CHECKS in response.content.decode()
    assert User.objects.filter(pk=member.pk).exists()


def test_the_account_page_offers_recovery_codes_to_a_member_with_only_a_passkey(member_client, member):
    Authenticator.objects.create(user=member, type=Authenticator.Type.WEBAUTHN, data={"name": "Telefoon"})
    RecoveryCodes.activate(member)
    assert 'href="/account/beveiliging/herstelcodes"' in member_client.get("/account").content.decode()
