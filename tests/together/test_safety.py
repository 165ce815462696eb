"""Veilig plonsen: the /veilig page, the season's briefing (only its read date is kept, it never blocks a
dip), "Opwarmen" and the one calm line of advice, and the pages' query budgets."""

import datetime
import json
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from apps.challenges.conditions import ADVICE_ALONE, ADVICE_COLD, dip_advice
from apps.challenges.models import Challenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.together.selectors import briefing_due, season_start
from apps.together.services import briefing_read, meetup_join
from tests.factories import DipBuddyFactory, DipFactory, MeetupFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_veilig_names_its_sources_and_asks_nothing_about_health(member_client):
    html = member_client.get("/veilig").content.decode()
    for text in ("Reddingsbrigade Nederland", "Outdoor Swimming Society", "RNLI", "afterdrop", "blauwalg", "zwemboei"):
        assert text in html
    assert "<form" not in html.split("<main", 1)[1].split("</main>")[0].replace('action="/logout"', "")


@pytest.mark.parametrize(
    ("today", "start"),
    [
        (datetime.date(2026, 10, 1), datetime.date(2026, 10, 1)),
        (datetime.date(2026, 12, 31), datetime.date(2026, 10, 1)),
        (datetime.date(2027, 3, 5), datetime.date(2026, 10, 1)),
        (datetime.date(2026, 9, 30), datetime.date(2025, 10, 1)),
    ],
)
def test_the_season_starts_on_1_october(today, start):
    assert season_start(today) == start


def test_the_season_start_is_a_setting(settings):
    settings.SAFETY_SEASON_START = "11-15"
    assert season_start(datetime.date(2026, 11, 14)) == datetime.date(2025, 11, 15)


def test_the_briefing_is_due_once_per_season(member):
    october = datetime.date(2026, 10, 3)
    assert briefing_due(member, today=october)
    briefing_read(user=member, today=october)
    member.refresh_from_db()
    assert member.safety_briefing_read_on == october
    assert not briefing_due(member, today=datetime.date(2027, 2, 1))
    assert briefing_due(member, today=datetime.date(2027, 10, 1))  # a new season


def test_the_card_carries_the_briefing_and_reading_it_is_kept_and_never_blocks_a_dip(member, member_client):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    assert _together(member_client)["briefing"]["due"] is True
    assert member_client.post("/challenge/plons").status_code == 201  # not read yet: the dip counts anyway
    answer = member_client.post("/veilig/gelezen")
    assert answer.status_code == 200 and answer.json()["read_on"] == timezone.localdate().isoformat()
    assert _together(member_client)["briefing"]["due"] is False  # the cached card moved with it
    assert member_client.get("/veilig/gelezen").status_code == 405


def _together(client) -> dict:
    html = client.get("/challenge").content.decode()
    start = html.index('id="together-data"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


@pytest.mark.parametrize(
    ("temperature", "buddies", "advice"),
    [
        (Decimal("4.9"), 1, ADVICE_COLD),
        (Decimal("4.9"), 0, ADVICE_COLD),  # one line, not two
        (Decimal("5.0"), 0, ADVICE_ALONE),
        (None, 0, ADVICE_ALONE),
        (Decimal("12"), 2, None),
        (None, 1, None),
    ],
)
def test_one_calm_line_for_cold_water_or_a_dip_alone(temperature, buddies, advice):
    assert dip_advice(water_temperature=temperature, buddy_count=buddies) == advice


def test_the_dip_answer_carries_the_advice_and_never_a_reward_for_the_cold(member, other_member, member_client):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    cold = member_client.post("/challenge/plons", {"water_temperature": "3", "buddies": [str(other_member.pk)]}).json()
    assert cold["advice"] == ADVICE_COLD and cold["celebration"] is None
    assert [toast["text"] for toast in cold["toasts"]] == ["Plons toegevoegd!"]


def test_met_wie_lists_active_clubmates_who_allow_tagging_afspraak_and_earlier_buddies_first(member, member_client):
    zoe, bas, adam = UserFactory(full_name="Zoë Zee"), UserFactory(full_name="Bas Bos"), UserFactory(full_name="Adam")
    UserFactory(full_name="Niet Taggen", tagging_allowed=False)
    UserFactory(full_name="Weg", is_active=False)
    # Bas named the member before; Zoë goes along with the member's afspraak of this morning.
    DipBuddyFactory(dip=DipFactory(user_challenge=UserChallengeFactory(user=bas), number=1), buddy=member)
    meetup = MeetupFactory(proposer=zoe, starts_at=timezone.now() + datetime.timedelta(hours=1))
    meetup_join(user=member, meetup_id=meetup.pk)
    answer = member_client.get("/samen/clubgenoten")
    assert answer["Cache-Control"] == "private, no-store"
    rows = answer.json()["candidates"]
    assert [(row["name"], row["atMeetup"], row["swumWith"]) for row in rows] == [
        ("Zoë Zee", True, False),
        ("Bas Bos", False, True),
        ("Adam", False, False),
    ]
    assert adam.pk


@pytest.mark.parametrize("size", [1, 40])
def test_met_wie_and_the_dashboard_cost_the_same_queries_at_any_size(member, size, django_assert_max_num_queries):
    from django.core.cache import caches

    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    for _ in range(size):
        other = UserFactory()
        UserChallengeFactory(user=other, started_at=timezone.now() - datetime.timedelta(days=2))
        dip_register(user=other, buddy_ids=[member.pk])
        meetup_join(user=other, meetup_id=MeetupFactory().pk)
    client = Client()
    client.force_login(member)
    caches["pages"].clear()
    with django_assert_max_num_queries(4):
        assert len(client.get("/samen/clubgenoten").json()["candidates"]) == size * 2
    caches["pages"].clear()
    with django_assert_max_num_queries(22):
        html = client.get("/dashboard").content.decode()
    assert "plonste met jou op" in html and "Wie gaat er plonsen?" in html
    caches["pages"].clear()
    with django_assert_max_num_queries(14):
        assert client.get("/challenge").status_code == 200


def test_the_card_offers_those_of_the_afspraak_of_about_now_until_it_has_passed(member, other_member, member_client):
    from apps.together.selectors import MEETUP_DIP_WINDOW, meetup_now_for
    from apps.together.services import meetup_leave

    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    now = timezone.now()
    later = MeetupFactory(proposer=other_member, starts_at=now + datetime.timedelta(days=3))
    meetup_join(user=member, meetup_id=later.pk)
    offer, until = meetup_now_for(member, now=now)
    assert offer is None and until == later.starts_at - MEETUP_DIP_WINDOW  # the card is rendered anew then
    soon = MeetupFactory(proposer=other_member, starts_at=now + datetime.timedelta(hours=2), place="Sloterplas")
    meetup_join(user=member, meetup_id=soon.pk)
    off = UserFactory(full_name="Niet Taggen", tagging_allowed=False)
    meetup_join(user=off, meetup_id=soon.pk)
    assert _together(member_client)["meetup"] == {
        "place": "Sloterplas",
        "startsAtDisplay": timezone.localtime(soon.starts_at).strftime("%H:%M"),
        "mates": [{"id": other_member.pk, "name": "Otto Ander"}],
    }
    offer, until = meetup_now_for(member, now=now + datetime.timedelta(hours=3))
    assert offer is not None and until == soon.starts_at + MEETUP_DIP_WINDOW
    meetup_leave(user=member, meetup_id=soon.pk)
    assert _together(member_client)["meetup"] is None  # the cached card moved with the list
