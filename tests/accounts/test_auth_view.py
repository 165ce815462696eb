import re

import pytest
from django.contrib.messages import get_messages
from django.test import override_settings

from apps.accounts.models import User
from apps.invitations.models import Invitation
from tests.factories import DEFAULT_PASSWORD, InvitationFactory, UserFactory
from tests.pwa import without_sw_registration

pytestmark = pytest.mark.django_db

SIGN_UP = {
    "form": "registreren",
    "code": "abcd2345",
    "full_name": "Nieuwe Zwemmer",
    "email": "Nieuw@Example.nl",
    "password": "geheim-123",
}
PASSWORD_MISMATCH = "Het door jou opgegeven e-mailadres en/of wachtwoord is niet correct."


def html_of(response) -> str:
    return response.content.decode()


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def current_tab(html: str) -> str:
    match = re.search(r'<a class="tab" href="[^"]*" aria-current="page">([^<]+)</a>', html)
    assert match, "no current tab"
    return match.group(1)


def input_value(html: str, name: str) -> str | None:
    match = re.search(rf'<input [^>]*name="{name}"[^>]*>', html)
    assert match, f"no input {name}"
    value = re.search(r'value="([^"]*)"', match.group(0))
    return value.group(1) if value else None


def label_texts(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", label).strip() for label in re.findall(r"<label [^>]*>(.*?)</label>", html, re.S)]


# --- the page ---------------------------------------------------------------------------------


def test_auth_page_opens_on_the_inloggen_tab(client):
    response = client.get("/auth")
    assert response.status_code == 200
    html = html_of(response)
    assert "Koud water challenge" in html and "Begin je ijskoude avontuur" in html
    assert current_tab(html) == "Inloggen"
    assert 'href="/auth?tab=registreren"' in html
    assert label_texts(html) == ["E-mailadres", "Wachtwoord"]
    assert re.search(r'<button type="submit"[^>]*>Inloggen</button>', html)
    assert '<a class="tap-link" href="/auth/wachtwoord-vergeten">Wachtwoord vergeten?</a>' in html
    assert "no-store" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_registreren_tab_has_every_field_with_a_visible_label(client):
    html = html_of(client.get("/auth?tab=registreren"))
    assert current_tab(html) == "Registreren"
    assert label_texts(html) == [
        "Uitnodigingscode",
        "Naam",
        "E-mailadres",
        "Wachtwoord",
        "Ja, ik ontvang graag de nieuwsbrief (optioneel)",
    ]
    assert 'type="checkbox" name="newsletter_consent"' in html
    assert re.search(r'<button type="submit"[^>]*>Registreren</button>', html)


def test_an_invitation_link_opens_registreren_with_the_code_filled_in(client):
    html = html_of(client.get("/auth?invite=abcd2345"))
    assert current_tab(html) == "Registreren"
    assert input_value(html, "code") == "ABCD2345"


def test_the_page_needs_no_javascript_and_no_inline_styles(client):
    for url in ["/auth?tab=registreren", "/auth/wachtwoord-vergeten"]:
        html = without_sw_registration(html_of(client.get(url)))
        assert "<script" not in html and "style=" not in html and "<style" not in html
    # Signing in with a passkey needs allauth's script and our Dutch passkey errors: static files, and the
    # settings as JSON data.
    html = without_sw_registration(html_of(client.get("/auth")))
    assert "style=" not in html and "<style" not in html
    tags = re.findall(r"<script([^>]*)>", html)
    assert len(tags) == 5
    assert all(' src="/static/' in tag or 'type="application/json"' in tag for tag in tags)


def test_the_sign_in_tab_offers_a_passkey(client):
    html = html_of(client.get("/auth?next=/challenge"))
    assert 'action="/auth/passkey"' in html and "Inloggen met een passkey" in html
    form = html[html.index('id="mfa_login"') :]
    assert '<input type="hidden" name="next" value="/challenge">' in form[: form.index("</form>")]


def test_a_signed_in_member_opening_auth_goes_to_the_dashboard(member_client):
    for response in [
        member_client.get("/auth"),
        member_client.get("/auth?tab=registreren"),
        member_client.post("/auth"),
    ]:
        assert response.status_code == 302
        assert response["Location"] == "/dashboard"


def test_other_methods_are_not_allowed(client):
    assert client.put("/auth").status_code == 405


# --- sign-up ----------------------------------------------------------------------------------


def test_sign_up_creates_the_account_and_shows_inloggen_with_the_address_filled_in(client):
    invitation = InvitationFactory(code="ABCD2345")
    response = client.post("/auth?tab=registreren", {**SIGN_UP, "newsletter_consent": "on"})
    assert response.status_code == 302
    assert response["Location"] == "/auth"

    user = User.objects.get()
    assert (user.email, user.full_name, user.newsletter_consent) == ("nieuw@example.nl", "Nieuwe Zwemmer", True)
    invitation.refresh_from_db()
    assert invitation.used_by == user and invitation.used_at is not None
    # Not signed in yet: the member signs in with the new password.
    assert "_auth_user_id" not in client.session

    page = client.get("/auth")
    html = html_of(page)
    assert "Account aangemaakt! Je kunt nu inloggen." in html
    assert current_tab(html) == "Inloggen"
    assert input_value(html, "login") == "nieuw@example.nl"
    # Shown once.
    assert input_value(html_of(client.get("/auth")), "login") is None


@pytest.mark.parametrize(
    ("invitation", "changes", "message"),
    [
        ({}, {"code": ""}, "Een uitnodigingscode is verplicht om te registreren"),
        ({}, {"code": "  "}, "Een uitnodigingscode is verplicht om te registreren"),
        ({}, {"code": "FOUT1234"}, "Ongeldige uitnodigingscode"),
        ({"used_at": "2026-01-01T00:00:00Z"}, {}, "Deze uitnodigingscode is al gebruikt"),
        (
            {"created_at": "2025-01-01T00:00:00Z", "expires_at": "2025-01-31T00:00:00Z"},
            {},
            "Deze uitnodigingscode is verlopen",
        ),
        ({"email": "ander@example.nl"}, {}, "Deze uitnodigingscode is bedoeld voor een ander e-mailadres"),
        ({}, {"full_name": "   "}, "Dit veld is verplicht."),
        ({}, {"password": "kort"}, "Je wachtwoord moet minstens 6 tekens lang zijn"),
        ({}, {"email": "geen-adres"}, "Voer een geldig e-mailadres in."),
    ],
    ids=[
        "empty-code",
        "blank-code",
        "wrong-code",
        "used",
        "expired",
        "foreign-email",
        "blank-name",
        "short-password",
        "bad-email",
    ],
)
def test_a_refused_sign_up_returns_on_registreren_with_the_message_and_the_typed_values(
    client, invitation, changes, message
):
    InvitationFactory(code="ABCD2345", **invitation)
    data = {**SIGN_UP, **changes}
    response = client.post("/auth?tab=registreren", data)
    assert response.status_code == 200
    html = html_of(response)
    assert current_tab(html) == "Registreren"
    assert message in html
    for field in ["full_name", "email"]:
        if data[field].strip():
            assert input_value(html, field) == data[field]
    assert input_value(html, "password") is None
    assert data["password"] not in html
    assert not User.objects.exists()
    assert Invitation.objects.get().used_by is None


def test_an_address_that_already_has_an_account_gets_a_clear_message_and_the_code_stays_unused(client):
    UserFactory(email="nieuw@example.nl")
    invitation = InvitationFactory(code="ABCD2345")
    html = html_of(client.post("/auth?tab=registreren", {**SIGN_UP, "email": "NIEUW@example.nl"}))
    assert "Er bestaat al een account met dit e-mailadres. Log in, of kies &#x27;Wachtwoord vergeten?&#x27;." in html
    assert User.objects.count() == 1
    invitation.refresh_from_db()
    assert invitation.used_at is None


def test_the_invalid_field_points_at_its_error_for_screen_readers(client):
    html = html_of(client.post("/auth?tab=registreren", {**SIGN_UP, "code": ""}))
    code_input = re.search(r'<input [^>]*name="code"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in code_input
    assert 'aria-describedby="id_code_error"' in code_input
    assert 'id="id_code_error"' in html


@override_settings(ACCOUNT_RATE_LIMITS={"signup": "2/m/ip"})
def test_sign_up_attempts_are_rate_limited_with_a_wait_message(client):
    for _ in range(2):
        client.post("/auth?tab=registreren", {**SIGN_UP, "code": "FOUT1234"})
    response = client.post("/auth?tab=registreren", {**SIGN_UP, "code": "FOUT1234"})
    assert response.status_code == 429
    html = html_of(response)
    assert "Wacht een minuut" in html
    assert input_value(html, "email") == SIGN_UP["email"]


# --- sign-in ----------------------------------------------------------------------------------


def sign_in(client, email="marit@example.nl", password=DEFAULT_PASSWORD, url="/auth", **extra):
    return client.post(url, {"form": "inloggen", "login": email, "password": password, **extra})


def test_sign_in_goes_to_the_dashboard(client, member):
    response = sign_in(client, email="Marit@Example.NL")
    assert response.status_code == 302
    assert response["Location"] == "/dashboard"
    assert client.session["_auth_user_id"] == str(member.pk)
    assert messages_of(response) == ["Je bent nu ingelogd als Marit Zwemmer."]


@pytest.mark.parametrize(
    ("next_url", "expected"),
    [
        ("/challenge", "/challenge"),
        ("/admin?tab=x", "/admin?tab=x"),
        ("https://evil.example/", "/dashboard"),
        ("//evil.example/", "/dashboard"),
        ("/\\evil.example", "/dashboard"),
        ("javascript:alert(1)", "/dashboard"),
        ("/auth", "/dashboard"),
        ("", "/dashboard"),
    ],
)
def test_sign_in_returns_to_a_safe_next_page_only(client, member, next_url, expected):
    response = sign_in(client, url="/auth?next=" + next_url if next_url else "/auth", next=next_url)
    assert response["Location"] == expected


def test_the_next_page_survives_the_tabs_and_the_form(client):
    html = html_of(client.get("/auth?next=/challenge"))
    assert 'href="/auth?tab=registreren&amp;next=%2Fchallenge"' in html
    assert '<input type="hidden" name="next" value="/challenge">' in html


def test_a_wrong_password_keeps_the_address_but_never_the_password(client, member):
    response = sign_in(client, password="verkeerd-wachtwoord")
    assert response.status_code == 200
    html = html_of(response)
    assert PASSWORD_MISMATCH in html
    assert current_tab(html) == "Inloggen"
    assert input_value(html, "login") == "marit@example.nl"
    assert input_value(html, "password") is None and "verkeerd-wachtwoord" not in html
    assert "_auth_user_id" not in client.session


def test_an_unknown_address_gets_the_same_message(client, db):
    assert PASSWORD_MISMATCH in html_of(sign_in(client, email="niemand@example.nl"))


def test_an_inactive_member_cannot_sign_in(client, member):
    member.is_active = False
    member.save()
    response = sign_in(client)
    assert response["Location"] == "/auth"
    assert messages_of(response) == ["Dit account is niet actief. Neem contact op met de organisatie."]
    assert "_auth_user_id" not in client.session
    assert PASSWORD_MISMATCH in html_of(sign_in(client, password="fout-fout"))


def test_empty_sign_in_fields_are_required_in_dutch(client, db):
    html = html_of(sign_in(client, email="", password=""))
    assert html.count("Dit veld is verplicht.") == 2


def test_failed_sign_ins_are_rate_limited_and_the_message_says_to_wait(client, member):
    for _ in range(5):
        assert PASSWORD_MISMATCH in html_of(sign_in(client, password="fout-fout"))
    html = html_of(sign_in(client, password="fout-fout"))
    assert "Te veel mislukte inlogpogingen. Wacht een paar minuten en probeer het dan opnieuw" in html
    assert "Wachtwoord vergeten?" in html
    # Even the right password is refused from this client until the wait is over.
    response = sign_in(client)
    assert response.status_code == 200
    assert "Wacht een paar minuten" in html_of(response)
    assert "_auth_user_id" not in client.session


@override_settings(ACCOUNT_RATE_LIMITS={"login": "2/m/ip"})
def test_sign_in_requests_per_ip_are_rate_limited_with_a_wait_message(client, member):
    sign_in(client, password="fout-fout")
    sign_in(client, password="fout-fout")
    response = sign_in(client)
    assert response.status_code == 429
    html = html_of(response)
    assert "Te veel pogingen achter elkaar. Wacht een minuut en probeer het dan opnieuw." in html
    assert input_value(html, "login") == "marit@example.nl"
    assert "_auth_user_id" not in client.session


# --- sign-out ---------------------------------------------------------------------------------


def test_uitloggen_ends_the_session_and_goes_home(member_client):
    response = member_client.post("/uitloggen")
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "_auth_user_id" not in member_client.session
    assert messages_of(response) == ["Je bent uitgelogd."]


def test_uitloggen_by_get_signs_nobody_out(member_client):
    # It shows the sign-out button (tests/accounts/test_expired_session.py); only the POST signs out.
    assert member_client.get("/uitloggen").status_code == 200
    assert "_auth_user_id" in member_client.session


def test_uitloggen_needs_the_csrf_token(member):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    assert client.post("/uitloggen").status_code == 403
    assert "_auth_user_id" in client.session


def test_the_logout_form_include_posts_to_uitloggen():
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    html = render_to_string("includes/logout_form.html", request=RequestFactory().get("/"))
    assert '<form method="post" action="/uitloggen">' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<button type="submit" class="btn btn-ghost">Uitloggen</button>' in html


# --- allauth's own pages ----------------------------------------------------------------------


def test_allauths_login_and_signup_pages_lead_to_auth(client, db):
    login = client.get("/auth/login/?next=/challenge")
    assert (login.status_code, login["Location"]) == (302, "/auth?next=/challenge")
    signup = client.get("/auth/signup/")
    assert (signup.status_code, signup["Location"]) == (302, "/auth?tab=registreren")


def test_allauth_is_closed_for_sign_up(rf):
    from allauth.account.adapter import get_adapter

    assert get_adapter().is_open_for_signup(rf.get("/")) is False


@pytest.mark.parametrize(
    "path", ["/accounts/signup/", "/auth/email/", "/auth/password/change/", "/auth/signup/passkey/"]
)
def test_no_other_allauth_pages_are_reachable(client, db, path):
    assert client.get(path).status_code in (302, 404)
    assert not User.objects.exists()
