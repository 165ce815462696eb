"""Issue 17.7: 'Challenge Stoppen' is a quiet action with one confirmation style that works without
JavaScript (a page of its own), and a completed card, the member's trophy, cannot be stopped."""

import re

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from apps.challenges.models import UserChallenge
from apps.challenges.services.cards import MESSAGE_COMPLETED_KEPT
from tests.factories import DipFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(member):
    return UserChallengeFactory(user=member)


def test_the_stamp_card_page_offers_stop_as_a_quiet_link_to_its_confirmation(member_client, card):
    html = member_client.get("/challenge").content.decode()
    stop = re.search(r'<a [^>]*data-confirm-dialog="stop-confirm"[^>]*>Challenge Stoppen</a>', html).group(0)
    assert 'href="/challenge/stoppen"' in stop and "btn-ghost" in stop and "btn-danger" not in stop
    dialog = html[html.index('<dialog id="stop-confirm"') : html.index("</dialog>")]
    assert 'href="/challenge" data-dialog-cancel>Annuleren</a>' in dialog
    assert ">Ja, stop en verwijder</button>" in dialog
    # The loudest thing on the screen is no longer the stop: it comes after the stamp card.
    assert html.index("stampcard-root") < html.index("Challenge Stoppen")


def test_without_javascript_the_confirmation_is_a_page_with_annuleren(member_client, card):
    response = member_client.get("/challenge/stoppen")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Challenge stoppen?" in html
    assert '<form method="post" action="/challenge/stoppen"' in html
    assert f'name="user_challenge_id" value="{card.pk}"' in html
    assert 'href="/challenge" data-dialog-cancel>Annuleren</a>' in html
    assert UserChallenge.objects.filter(pk=card.pk).exists()  # a GET stops nothing


def test_the_confirmation_page_without_a_card_goes_to_the_dashboard(member_client):
    assert member_client.get("/challenge/stoppen")["Location"] == "/dashboard"


def test_a_completed_card_offers_no_stop_and_refuses_one(member_client, member):
    starter = UserChallengeFactory(user=member)
    target = starter.challenge.target_dips
    for number in range(1, target + 1):
        DipFactory(user_challenge=starter, number=number)
    starter.completed_at = timezone.now()
    starter.save(update_fields=["completed_at"])

    assert "Challenge Stoppen" not in member_client.get("/challenge").content.decode()
    page = member_client.get("/challenge/stoppen")
    assert page["Location"] == "/challenge"
    refused = member_client.post("/challenge/stoppen", {"user_challenge_id": starter.pk})
    assert refused["Location"] == "/challenge"
    assert MESSAGE_COMPLETED_KEPT in [str(m) for m in get_messages(refused.wsgi_request)]
    assert UserChallenge.objects.filter(pk=starter.pk).exists()
    assert starter.dips.count() == target
