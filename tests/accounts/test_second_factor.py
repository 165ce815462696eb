"""The admin role needs a second factor; passkeys and the factor on /account."""

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP
from django.contrib.messages import get_messages

from apps.accounts.second_factor import MESSAGE_SECOND_FACTOR_REQUIRED
from tests.factories import DEFAULT_PASSWORD, TOTP_SECRET, AdminFactory

pytestmark = pytest.mark.django_db

SETUP = "/account#tweede-factor"


@pytest.fixture
def bare_admin(client):
    admin = AdminFactory(second_factor=False)
    client.force_login(admin)
    return admin


@pytest.mark.parametrize("path", ["/admin", "/admin/nieuwsbrief.csv", "/django-admin/", "/django-admin/events/event/"])
def test_an_admin_without_a_second_factor_is_sent_to_set_one_up(client, bare_admin, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"] == SETUP
    assert MESSAGE_SECOND_FACTOR_REQUIRED in [str(m) for m in get_messages(response.wsgi_request)]


def test_the_admin_endpoints_answer_json(client, bare_admin):
    response = client.get("/admin/api/gebruikers")
    assert response.status_code == 403 and response.json() == {"error": MESSAGE_SECOND_FACTOR_REQUIRED}


def test_an_authenticator_app_or_a_passkey_opens_the_admin(client, bare_admin):
    TOTP.activate(bare_admin, TOTP_SECRET)
    assert client.get("/admin").status_code == 200
    Authenticator.objects.filter(user=bare_admin).delete()
    Authenticator.objects.create(user=bare_admin, type=Authenticator.Type.WEBAUTHN, data={"name": "Telefoon"})
    assert client.get("/django-admin/").status_code == 200


def test_recovery_codes_alone_are_no_second_factor(client, bare_admin):
    Authenticator.objects.create(user=bare_admin, type=Authenticator.Type.RECOVERY_CODES, data={"seed": "00"})
    assert client.get("/admin")["Location"] == SETUP


def test_members_are_not_asked_for_a_factor(member_client):
    html = member_client.get("/account").content.decode()
    assert "Passkeys en tweede factor" in html
    assert MESSAGE_SECOND_FACTOR_REQUIRED not in html
    assert "Je hebt nog geen passkey." in html
    assert 'href="/account/beveiliging/passkeys/toevoegen"' in html
    assert 'href="/account/beveiliging/app/instellen"' in html


def test_the_account_page_tells_a_factorless_admin_why(client, bare_admin):
    html = client.get("/account").content.decode()
    assert MESSAGE_SECOND_FACTOR_REQUIRED in html and 'id="tweede-factor"' in html


def test_the_account_page_lists_the_members_passkeys_with_a_way_to_remove_them(member_client, member):
    passkey = Authenticator.objects.create(user=member, type=Authenticator.Type.WEBAUTHN, data={"name": "Telefoon"})
    html = member_client.get("/account").content.decode()
    assert "Telefoon" in html
    assert f'href="/account/beveiliging/passkeys/{passkey.pk}/verwijderen"' in html


def test_the_pages_of_allauth_are_dutch_in_our_layout(member_client):
    member_client.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD})  # adding a factor asks for it first
    html = member_client.get("/account/beveiliging/passkeys/toevoegen").content.decode()
    assert '<html lang="nl">' in html and 'class="site-header"' in html
    assert "Naam van de passkey" in html and "Toevoegen" in html
    # Its scripts are static files: nothing inline for the strict CSP.
    assert '<script src="/static/mfa/js/webauthn.js"></script>' in html
    for script in html.split("<script")[1:]:
        assert ' src="' in script.split(">")[0] or 'type="application/json"' in script.split(">")[0]
