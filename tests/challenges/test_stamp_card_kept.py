"""The stamp card (/challenge) after her dip (issue 37, goal 1): samen plonsen's part of it (the afspraak of about
now, the season's briefing) is a cached section kept through her dips, and moves with everything it shows; the
card, its challenge, badges and awards are read as plain rows and show what the models show."""

import datetime
import json

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.services import account_profile_update
from apps.challenges.card_payloads import badge_payload, stamp_card_props
from apps.challenges.models import Badge, Challenge, PhysicalStatus, UserBadge, UserChallenge
from apps.challenges.selectors import active_card_for
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.together.selectors import season_next_start
from apps.together.services import briefing_read, meetup_cancel, meetup_join, meetup_leave, tagging_set
from tests.factories import MeetupFactory, UserBadgeFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def _island(html: str, element_id: str) -> dict:
    start = html.index(f'id="{element_id}"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


@pytest.fixture
def swim():
    """Marit with a card under way, going along to Zoë's afspraak of this hour; her client with the card cached."""
    marit, zoe = UserFactory(full_name="Marit Zwemmer"), UserFactory(full_name="Zoë Zee")
    challenge_start(user=marit, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    meetup = MeetupFactory(proposer=zoe, starts_at=timezone.now() + datetime.timedelta(minutes=30), place="Steiger")
    meetup_join(user=marit, meetup_id=meetup.pk)
    client = Client()
    client.force_login(marit)
    caches["pages"].clear()
    assert client.get("/challenge").status_code == 200
    return marit, zoe, meetup, client


def _card(client) -> tuple[dict, dict]:
    html = client.get("/challenge").content.decode()
    return _island(html, "stampcard-data"), _island(html, "together-data")


def test_her_dip_keeps_samen_plonsens_part_of_the_card(swim):
    marit, _zoe, _meetup, client = swim
    dip_register(user=marit)
    with CaptureQueriesContext(connection) as queries:
        card, together = _card(client)
    assert card["dipCount"] == 1  # her dip: the card is new...
    assert together["meetup"]["mates"][0]["name"] == "Zoë Zee"  # ...samen plonsen's part from the cache
    assert not [query for query in queries if "together_meetup" in query["sql"]]


def _renamed(marit, zoe, meetup):
    account_profile_update(user=zoe, full_name="Zoë Zeewater", email=zoe.email, newsletter_consent=False)


def _tagging_off(marit, zoe, meetup):
    tagging_set(user=zoe, allowed=False)


def _left(marit, zoe, meetup):
    meetup_leave(user=marit, meetup_id=meetup.pk)


def _cancelled(marit, zoe, meetup):
    meetup_cancel(user=zoe, meetup_id=meetup.pk)


def _read(marit, zoe, meetup):
    briefing_read(user=marit)


def _mate_joins(marit, zoe, meetup):
    meetup_join(user=UserFactory(full_name="Bas Bos"), meetup_id=meetup.pk)


def _mates(together: dict) -> list[str]:
    return [mate["name"] for mate in together["meetup"]["mates"]]


@pytest.mark.parametrize(
    ("write", "shown"),
    [
        (_renamed, lambda together: _mates(together) == ["Zoë Zeewater"]),
        (_tagging_off, lambda together: together["meetup"]["mates"] == []),
        (_left, lambda together: together["meetup"] is None),
        (_cancelled, lambda together: together["meetup"] is None),
        (_read, lambda together: together["briefing"]["due"] is False),
        (_mate_joins, lambda together: _mates(together) == ["Zoë Zee", "Bas Bos"]),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_the_kept_part_moves_with_what_it_shows(swim, write, shown):
    marit, zoe, meetup, client = swim
    dip_register(user=marit)
    _card_before, together = _card(client)  # the part kept through her dip
    assert together["meetup"]["mates"][0]["name"] == "Zoë Zee" and together["briefing"]["due"] is True
    write(marit, zoe, meetup)
    _card_after, together = _card(client)
    assert shown(together), together


def test_the_briefing_is_true_until_the_next_season_starts():
    assert season_next_start(datetime.date(2026, 11, 28)) == timezone.make_aware(datetime.datetime(2027, 10, 1))
    assert season_next_start(datetime.date(2026, 9, 30)) == timezone.make_aware(datetime.datetime(2026, 10, 1))


def test_the_active_card_read_as_a_row_is_the_models_card(member):
    assert active_card_for(member) is None
    UserChallengeFactory(user=member, is_active=False)
    card = UserChallengeFactory(user=member, completed_at=timezone.now())
    read = active_card_for(member)
    expected = UserChallenge.objects.select_related("challenge").get(pk=card.pk)
    assert read == expected and read.is_completed
    for field in UserChallenge._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(expected, field.attname), field.name
    for field in Challenge._meta.concrete_fields:
        assert getattr(read.challenge, field.attname) == getattr(expected.challenge, field.attname), field.name
    with CaptureQueriesContext(connection) as queries:
        assert read.challenge.name == expected.challenge.name
    assert not queries  # the challenge came with the card


def test_the_badges_read_as_rows_are_the_models_badges(member):
    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = UserChallengeFactory(user=member, challenge=challenge)
    badges = list(Badge.objects.filter(challenge=challenge).order_by("milestone_dips"))
    sent = UserBadgeFactory(
        user_challenge=card,
        badge=badges[0],
        physical_status=PhysicalStatus.SENT,
        physical_status_on=datetime.date(2026, 12, 3),
    )
    UserBadgeFactory(user_challenge=card, badge=badges[1])
    awards = {award.badge_id: award for award in UserBadge.objects.filter(user_challenge=card)}
    props = stamp_card_props(card)
    assert props["badges"] == [badge_payload(badge, awards.get(badge.pk)) for badge in badges]
    assert props["badges"][0]["physicalStatusDisplay"] == "Fysieke badge verstuurd op 3 december 2026"
    assert props["badges"][0]["earnedAtDisplay"] and props["badges"][0]["earned"] and sent.pk
    assert props["badges"][2]["earned"] is False and props["badges"][2]["physicalStatusDisplay"] is None
    assert props["milestones"] == [badge.milestone_dips for badge in badges]
