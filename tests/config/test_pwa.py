"""The installable app: manifest, service worker at the root, offline page, the member mark on pages."""

import json
import uuid
from pathlib import Path

import pytest

from apps.core.page_cache import PAGE_DIGEST_HEADER
from config.middleware import MEMBER_COOKIE, MEMBER_HEADER
from tests.factories import UserFactory

DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist"
pytestmark = pytest.mark.django_db


def test_the_service_worker_is_served_from_the_root_with_scope_slash(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    assert body == (DIST / "sw.js").read_text()
    # Workbox's precache list names the build's files; the worker puts them under /static/.
    assert '"assets/stampcard-' in body and "/static/" in body


def test_the_manifest_is_dutch_standalone_and_linked_from_every_page(client, member):
    manifest = json.loads((DIST / "manifest.webmanifest").read_text())
    assert manifest["name"] == "Koud water challenge"
    assert manifest["lang"] == "nl"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/dashboard" and manifest["scope"] == "/"
    assert (manifest["theme_color"], manifest["background_color"]) == ("#072a47", "#f4f9fc")
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    assert [s["name"] for s in manifest["shortcuts"]] == ["Plons registreren", "Mijn statistieken"]
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200
    client.force_login(member)
    for path in ["/", "/dashboard", "/account", "/offline"]:
        html = client.get(path).content.decode()
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in html, path
        assert '<meta name="apple-mobile-web-app-capable" content="yes">' in html, path
        assert 'rel="apple-touch-icon"' in html, path


def test_the_offline_page_is_dutch_and_the_same_for_everyone(client):
    response = client.get("/offline")
    assert response.status_code == 200
    assert "Geen verbinding…" in response.content.decode()
    assert MEMBER_HEADER not in response


def test_a_members_pages_carry_an_opaque_mark_of_that_member_only(client):
    first, second = UserFactory(), UserFactory()
    assert MEMBER_HEADER not in client.get("/")
    client.force_login(first)
    mark = client.get("/dashboard")[MEMBER_HEADER]
    assert mark == client.get("/account")[MEMBER_HEADER]
    assert len(mark) == 32 and mark != str(first.pk) and first.email not in mark
    client.force_login(second)
    assert client.get("/dashboard")[MEMBER_HEADER] != mark
    client.logout()
    assert MEMBER_HEADER not in client.get("/")


def test_the_member_cookie_comes_and_goes_with_the_session(client):
    member = UserFactory()
    client.force_login(member)
    response = client.get("/dashboard")
    cookie = response.cookies[MEMBER_COOKIE]
    assert cookie.value == response[MEMBER_HEADER]
    assert not cookie["httponly"] and cookie["samesite"] == "Lax"
    assert MEMBER_COOKIE not in client.get("/account").cookies  # set once, not on every page
    gone = client.post("/uitloggen").cookies[MEMBER_COOKIE]
    assert gone.value == "" and gone["max-age"] == 0


def test_a_cached_member_page_carries_a_digest_of_what_it_shows(client):
    from apps.challenges.services.dips import dip_register
    from tests.factories import UserChallengeFactory

    card = UserChallengeFactory()
    client.force_login(card.user)
    digest = client.get("/challenge")[PAGE_DIGEST_HEADER]
    # The same page again (another CSRF token in it): the same digest; after a dip: another.
    assert client.get("/challenge")[PAGE_DIGEST_HEADER] == digest
    dip_register(user=card.user)
    assert client.get("/challenge")[PAGE_DIGEST_HEADER] != digest
    client.logout()
    assert PAGE_DIGEST_HEADER not in client.get("/")


def test_a_queued_tap_of_another_member_is_refused_and_stores_nothing(client):
    """A's tap, sent later with B's session (a shared phone): refused with `other_member` (the phone keeps it
    for A), never counted for B or lost; the tap of the session's own member goes through."""
    from apps.accounts.access import member_mark
    from apps.challenges.models import Dip
    from tests.factories import UserChallengeFactory

    a, b = UserFactory(), UserFactory()
    card_a, card_b = UserChallengeFactory(user=a), UserChallengeFactory(user=b)
    client.force_login(b)
    tap = {"request_id": str(uuid.uuid4()), "user_challenge_id": card_a.pk}
    response = client.post("/challenge/plons", tap, headers={MEMBER_HEADER: member_mark(a.pk)})
    assert response.status_code == 409
    assert response.json()["code"] == "other_member"
    assert not Dip.objects.exists()
    own = {"request_id": str(uuid.uuid4()), "user_challenge_id": card_b.pk}
    assert client.post("/challenge/plons", own, headers={MEMBER_HEADER: member_mark(b.pk)}).status_code == 201
    assert Dip.objects.get().user_challenge_id == card_b.pk
