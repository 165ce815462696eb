"""Issue 17.2 and 17.4: the newsletter export says what happened, and an admin action updates every number."""

import json
import re

import pytest

from apps.challenges.models import UserChallenge
from tests.factories import DipFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_export_link_is_a_plain_link_not_a_download_that_would_save_the_admin_page(admin_client):
    html = admin_client.get("/admin").content.decode()
    link = re.search(r'<a [^>]*href="/admin/nieuwsbrief.csv"[^>]*>', html).group(0)
    assert "download" not in link


def test_the_islands_export_without_subscribers_gets_the_message_as_json(admin_client):
    response = admin_client.get("/admin/nieuwsbrief.csv", HTTP_ACCEPT="text/csv, application/json")
    assert response.status_code == 404
    assert response.json() == {"error": "Geen nieuwsbrief abonnees gevonden", "code": "no_subscribers"}


def test_the_islands_export_with_subscribers_gets_the_csv(admin_client):
    UserFactory(email="abonnee@example.nl", newsletter_consent=True)
    response = admin_client.get("/admin/nieuwsbrief.csv", HTTP_ACCEPT="text/csv, application/json")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert "abonnee@example.nl" in response.content.decode("utf-8")


def test_the_admin_page_hands_the_island_its_numbers(admin_client):
    UserFactory(newsletter_consent=True)
    html = admin_client.get("/admin").content.decode()
    data = json.loads(re.search(r'<script id="admin-data" type="application/json">(.*?)</script>', html).group(1))
    assert data["stats"] == {
        "users": 2,
        "activeChallenges": 0,
        "dips": 0,
        "subscribers": 1,
        "dipsThisWeek": 0,
        "newMembersThisMonth": 2,
    }
    assert data["endpoints"]["newsletterExport"] == "/admin/nieuwsbrief.csv"
    for name in ("users", "activeChallenges", "dips", "subscribers", "dipsThisWeek", "newMembersThisMonth"):
        assert f'data-admin-stat="{name}"' in html


def test_deleting_a_user_answers_with_every_number_it_changed(admin_client):
    gone = UserFactory(newsletter_consent=True)
    card = UserChallengeFactory(user=gone)
    DipFactory.create_batch(3, user=gone, user_challenge=card)
    stays = UserFactory()
    DipFactory(user=stays, user_challenge=UserChallengeFactory(user=stays))
    assert UserChallenge.objects.filter(is_active=True).count() == 2

    response = admin_client.post(f"/admin/api/gebruikers/{gone.pk}/verwijderen")

    assert response.status_code == 200
    assert response.json() == {
        "message": "Gebruiker verwijderd",
        # The dips and members counted this week and month change too: the deleted member joined now.
        "stats": {
            "users": 2,
            "activeChallenges": 1,
            "dips": 1,
            "subscribers": 0,
            "dipsThisWeek": 1,
            "newMembersThisMonth": 2,
        },
    }
