"""The admin role needs a second factor; passkeys and the factor on /account."""

import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, hotp_value
from django.conf import settings
from django.contrib.messages import get_messages
from django.test import override_settings

from apps.accounts.access import MESSAGE_NO_ADMIN
from apps.accounts.second_factor import MESSAGE_SECOND_FACTOR_REQUIRED
from apps.invitations.models import Invitation
from tests.factories import DEFAULT_PASSWORD, TOTP_SECRET, DipFactory, UserChallengeFactory
from tests.security.conftest import save_photo

pytestmark = pytest.mark.django_db

SETUP = "/account#tweede-factor"


@pytest.mark.parametrize("path", ["/admin", "/admin/nieuwsbrief.csv", "/django-admin/", "/django-admin/events/event/"])
def test_an_admin_without_a_second_factor_is_sent_to_set_one_up(bare_admin_client, path):
    response = bare_admin_client.get(path)
    assert response.status_code == 302 and response["Location"] == SETUP
    assert MESSAGE_SECOND_FACTOR_REQUIRED in [str(m) for m in get_messages(response.wsgi_request)]


def test_the_admin_endpoints_answer_json(bare_admin_client):
    response = bare_admin_client.get("/admin/api/gebruikers")
    assert response.status_code == 403 and response.json() == {
        "error": MESSAGE_SECOND_FACTOR_REQUIRED,
        "code": "second_factor_required",
    }


def test_an_authenticator_app_or_a_passkey_opens_the_admin(bare_admin_client, bare_admin):
    TOTP.activate(bare_admin, TOTP_SECRET)
    assert bare_admin_client.get("/admin").status_code == 200
    Authenticator.objects.filter(user=bare_admin).delete()
    Authenticator.objects.create(user=bare_admin, type=Authenticator.Type.WEBAUTHN, data={"name": "Telefoon"})
    assert bare_admin_client.get("/django-admin/").status_code == 200


def test_recovery_codes_alone_are_no_second_factor(bare_admin_client, bare_admin):
    Authenticator.objects.create(user=bare_admin, type=Authenticator.Type.RECOVERY_CODES, data={"seed": "00"})
    assert bare_admin_client.get("/admin")["Location"] == SETUP


def test_members_are_not_asked_for_a_factor(member_client):
    html = member_client.get("/account").content.decode()
    assert "Passkeys en tweede factor" in html
    assert MESSAGE_SECOND_FACTOR_REQUIRED not in html
    assert "Je hebt nog geen passkey." in html
    assert 'href="/account/beveiliging/passkeys/toevoegen"' in html
    assert 'href="/account/beveiliging/app/instellen"' in html


def test_the_account_page_tells_a_factorless_admin_why(bare_admin_client):
    html = bare_admin_client.get("/account").content.decode()
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


# --- the role alone gives no power: "acts as admin" is one predicate, not a list of URL prefixes ---------


@pytest.fixture
def members_photo_dip(member):
    full, thumb = save_photo(member, "marit-1")
    return DipFactory(user_challenge=UserChallengeFactory(user=member), photo=full, thumbnail=thumb)


def test_a_bare_admin_sees_no_other_members_photo(bare_admin_client, members_photo_dip):
    for url in (f"/foto/{members_photo_dip.pk}", f"/foto/{members_photo_dip.pk}/klein"):
        assert bare_admin_client.get(url).status_code == 404  # answered like a missing photo, as for a member


def test_with_a_second_factor_the_same_admin_sees_it(bare_admin_client, bare_admin, members_photo_dip):
    TOTP.activate(bare_admin, TOTP_SECRET)
    assert bare_admin_client.get(f"/foto/{members_photo_dip.pk}").status_code == 200


WITHOUT_THE_REDIRECT = [m for m in settings.MIDDLEWARE if not m.endswith("AdminSecondFactorMiddleware")]


@override_settings(MIDDLEWARE=WITHOUT_THE_REDIRECT)
def test_without_the_middleware_a_bare_admin_is_still_refused_like_a_member(bare_admin_client, other_member):
    """The middleware only shows the way to /account: the refusal itself is the views' and Django admin's."""
    response = bare_admin_client.get("/admin")
    assert response["Location"] == "/dashboard"
    assert MESSAGE_NO_ADMIN in [str(m) for m in get_messages(response.wsgi_request)]
    response = bare_admin_client.get("/admin/api/gebruikers")
    assert response.status_code == 403 and response.json() == {"error": MESSAGE_NO_ADMIN, "code": "not_admin"}
    response = bare_admin_client.post(
        "/admin/api/uitnodigingen/nieuw", {"email": "indringer@example.nl"}, content_type="application/json"
    )
    assert response.status_code == 403 and not Invitation.objects.exists()
    response = bare_admin_client.post(f"/admin/api/gebruikers/{other_member.pk}/verwijderen")
    assert response.status_code == 403 and type(other_member).objects.filter(pk=other_member.pk).exists()
    assert bare_admin_client.get("/django-admin/")["Location"].startswith("/django-admin/login/")
    assert bare_admin_client.get("/django-admin/accounts/user/")["Location"].startswith("/django-admin/login/")


def test_the_header_shows_the_way_to_the_admin_once_a_factor_is_added(
    bare_admin_client, django_capture_on_commit_callbacks
):
    """Through allauth's own flow: its signal makes the cached dashboard render anew."""
    assert 'href="/admin"' not in bare_admin_client.get("/dashboard").content.decode()
    bare_admin_client.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD})  # setting up a factor asks for it
    bare_admin_client.get("/account/beveiliging/app/instellen")
    secret = bare_admin_client.session["mfa.totp.secret"]
    code = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
    with django_capture_on_commit_callbacks(execute=True):  # allauth signals after the commit
        response = bare_admin_client.post("/account/beveiliging/app/instellen", {"code": code})
    assert response.status_code == 302, response.content.decode()[:2000]
    bare_admin_client.get("/account")  # shows allauth's message: the next dashboard may come from the cache
    assert 'href="/admin"' in bare_admin_client.get("/dashboard").content.decode()
