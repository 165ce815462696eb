"""One swim, one stamp under real parallel taps (PostgreSQL row locks, real threads): two phones, or thirty
taps, of one member at once make one stamp; a club goal counts swims, not taps (issue 35)."""

import datetime
import uuid

import pytest
from django.utils import timezone

from apps.attendance.services import attendance_save
from apps.challenges.models import ClubChallenge, Dip, DipBuddy
from apps.challenges.services.club_progress import club_goal_totals
from apps.challenges.services.dips import DipOutcome, dip_register
from apps.together.services import buddy_accept
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import (
    AdminFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    EventFactory,
    EventParticipantFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _rule(settings):
    requires_postgresql()
    settings.DIP_SAME_SWIM_HOURS = 3
    settings.DIP_DAILY_LIMIT_ENABLED = False  # the default: the rule must hold without the daily limit


def _card(member):
    return UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=2))


def test_thirty_parallel_taps_of_one_member_make_one_stamp():
    member = UserFactory()
    card = _card(member)
    results = run_concurrently(lambda _: dip_register(user=member, request_id=uuid.uuid4()), times=30)
    assert all(isinstance(result, DipOutcome) for result in results), results
    assert card.dips.count() == 1
    assert sum(not result.confirmed for result in results) == 1  # type: ignore[union-attr]
    assert len({result.dip.pk for result in results}) == 1  # type: ignore[union-attr]
    member.refresh_from_db()
    assert member.dip_count == 1


def test_thirty_parallel_taps_without_a_card_count_one_swim_for_the_club_goal():
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=30)
    member = UserFactory()
    ClubChallengeEntryFactory(user=member, club_challenge=goal)
    results = run_concurrently(lambda _: dip_register(user=member, request_id=uuid.uuid4()), times=30)
    assert all(isinstance(result, DipOutcome) for result in results), results
    assert Dip.objects.filter(user=member).count() == 1
    assert club_goal_totals([goal.pk])[goal.pk] == 1


def test_a_tap_a_buddy_accept_and_a_tick_at_once_make_one_stamp():
    start = timezone.now() - datetime.timedelta(minutes=30)
    swim = EventFactory(event_date=start)
    anna, bram = UserFactory(full_name="Anna"), UserFactory(full_name="Bram")
    _card(anna)
    card = _card(bram)
    EventParticipantFactory(event=swim, user=bram)
    anna_dip = dip_register(user=anna, buddy_ids=[bram.pk], now=start + datetime.timedelta(minutes=5)).dip
    tag = DipBuddy.objects.get(dip=anna_dip, buddy=bram)
    organiser = AdminFactory()

    def act(index: int):
        if index % 3 == 0:
            return buddy_accept(user=bram, tag_id=tag.pk)
        if index % 3 == 1:
            return attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[bram.pk])
        return dip_register(user=bram, request_id=uuid.uuid4())

    results = run_concurrently(act, times=9)
    assert not any(isinstance(result, Exception) for result in results), results
    assert card.dips.count() == 1
