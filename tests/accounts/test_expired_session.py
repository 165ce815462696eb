"""Issue 17.1: a member whose session ran out taps a form button (Aanmelden, Afmelden, Start challenge,
Challenge Stoppen). Signing in again must land on the page the form lives on, with the session message,
never on the POST-only address (which the browser would GET and answer with a bare 405)."""

import pytest
from django.urls import reverse

from apps.accounts.access import MESSAGE_SESSION_EXPIRED
from tests.factories import DEFAULT_PASSWORD, EventFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def sign_in_from(client, login_url: str, user):
    """Follows the sign-in as the browser would: open the login page it was sent to, post the form there."""
    page = client.get(login_url)
    assert page.status_code == 200
    return client.post(login_url, {"form": "inloggen", "login": user.email, "password": DEFAULT_PASSWORD}, follow=True)


@pytest.mark.parametrize(
    ("url_of", "data_of", "lands_on"),
    [
        (lambda w: reverse("event_join", args=[w["event"].pk]), lambda w: {}, "/dashboard"),
        (lambda w: reverse("event_leave", args=[w["event"].pk]), lambda w: {}, "/dashboard"),
        (lambda w: reverse("challenge_start"), lambda w: {"challenge_id": w["challenge"].pk}, "/dashboard"),
        (lambda w: reverse("challenge_stop"), lambda w: {"user_challenge_id": w["card"].pk}, "/challenge"),
    ],
    ids=["aanmelden", "afmelden", "start-challenge", "challenge-stoppen"],
)
def test_signing_in_again_after_an_expired_session_lands_on_the_forms_page(client, url_of, data_of, lands_on):
    member = UserFactory()
    card = UserChallengeFactory(user=member)
    world = {"event": EventFactory(), "challenge": card.challenge, "card": card}

    refused = client.post(url_of(world), data_of(world))  # no session: it ran out

    assert refused.status_code == 302
    login_page = client.get(refused["Location"])
    assert MESSAGE_SESSION_EXPIRED in login_page.content.decode()
    landed = sign_in_from(client, refused["Location"], member)
    assert landed.status_code == 200, landed.redirect_chain
    assert landed.request["PATH_INFO"] == lands_on
    assert all(status != 405 for _url, status in landed.redirect_chain)


def test_the_event_forms_send_the_member_back_to_the_events_section(client):
    refused = client.post(reverse("event_join", args=[EventFactory().pk]))
    assert refused["Location"] == "/auth?next=/dashboard%23samen"


def test_get_uitloggen_shows_the_sign_out_button_to_a_signed_in_member(member_client):
    response = member_client.get("/uitloggen")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<form method="post" action="/uitloggen">' in html
    assert ">Uitloggen</button>" in html
    assert member_client.session.get("_auth_user_id")  # a GET signs nobody out


def test_get_uitloggen_without_a_session_goes_home(client):
    response = client.get("/uitloggen")
    assert (response.status_code, response["Location"]) == (302, "/")


def test_the_sign_out_page_still_signs_out_with_its_post(member_client):
    response = member_client.post("/uitloggen")
    assert (response.status_code, response["Location"]) == (302, "/")
    assert not member_client.session.get("_auth_user_id")
