"""Issue 34 §6: the first dashboard leads with starting a card ("Klaar voor je eerste plons?" and "Start Nu" at the
top, above every empty section), then the club's question; "Klaar voor je volgende plons?" only after a first dip.
Through the real services and the page cache."""

import pytest

from apps.challenges.models import Challenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.club.models import ClubSharing

pytestmark = pytest.mark.django_db

FIRST = "Klaar voor je eerste plons?"
NEXT = "Klaar voor je volgende plons?"
QUESTION = "Deel mijn plonsen met de club?"


def dashboard(client) -> str:
    response = client.get("/dashboard")
    assert response.status_code == 200
    return response.content.decode()


def waterdieren() -> Challenge:
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


def section(html: str, anchor: str) -> str:
    part = html[html.index(f'id="{anchor}"') :]
    return part[: part.index("</section>")]


def test_a_new_member_starts_at_the_top_then_the_club_question_then_the_empty_sections(member_client):
    html = dashboard(member_client)
    assert FIRST in html and NEXT not in html
    first = section(html, "eerste-plons")
    assert FIRST in first and "Start Nu" in first and "Waterdieren Stempelkaart" in first
    start = html.index("Start Nu")
    assert html.count("Start Nu") == 1
    assert start < html.index(QUESTION)
    for later in ("Je actieve challenge(s)", "Je verdiende badges", "Bijzondere Challenges", "Wie gaat er plonsen?"):
        assert html.index(QUESTION) < html.index(later), later
    # The greeting stays, and nothing empty comes before the start.
    assert html.index("Welkom, Marit Zwemmer!") < start
    assert "empty-state" not in html[:start]


def test_after_the_first_dip_it_is_the_next_plons_and_the_question_is_gone(member_client, member):
    challenge_start(user=member, challenge_id=waterdieren().pk)
    html = dashboard(member_client)
    first = section(html, "eerste-plons")
    assert FIRST in first and "Naar stempelkaart" in first and "Start Nu" not in html  # a card, no dip yet
    dip_register(user=member)
    html = dashboard(member_client)  # the cached page moved with her dip
    assert NEXT in html and FIRST not in html and QUESTION not in html
    assert "Mijn statistieken" in section(html, "eerste-plons")


def test_a_dip_on_a_finished_or_stopped_card_still_counts_as_having_dipped(member_client, member):
    from tests.factories import DipFactory, UserChallengeFactory

    DipFactory(user=member, user_challenge=UserChallengeFactory(user=member, is_active=False))
    html = dashboard(member_client)
    assert NEXT in html and FIRST not in html
    assert html.index("Start Nu") < html.index("Je actieve challenge(s)")  # no card under way: start first


def test_the_club_question_is_answered_on_the_dashboard(member_client, member):
    assert QUESTION in dashboard(member_client)
    response = member_client.post("/club/delen", {"share_dips": "nee", "back": "dashboard"})
    assert response.status_code == 302 and response["Location"] == "/dashboard#eerste-plons"
    assert ClubSharing.objects.get(user=member).share_dips is False
    assert QUESTION not in dashboard(member_client)
