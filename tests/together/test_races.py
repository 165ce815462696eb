"""Plonsafspraken and buddy answers under real parallel requests (PostgreSQL row locks, real threads)."""

import datetime

import pytest
from django.utils import timezone

from apps.challenges.models import Dip, DipBuddy
from apps.challenges.services.dips import DipOutcome
from apps.notifications.models import Mail
from apps.together.models import Meetup, MeetupParticipant
from apps.together.services import (
    MEETUP_MAX_OPEN,
    TogetherError,
    buddy_accept,
    buddy_decline,
    meetup_cancel,
    meetup_join,
    meetup_leave,
    meetup_propose,
)
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import DipBuddyFactory, DipFactory, MeetupFactory, UserChallengeFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgresql():
    requires_postgresql()


def test_twenty_members_join_at_once_and_all_go():
    meetup = MeetupFactory()
    members = [UserFactory() for _ in range(20)]
    results = run_concurrently(lambda i: meetup_join(user=members[i], meetup_id=meetup.pk), times=20)
    assert all(isinstance(result, MeetupParticipant) for result in results), results
    assert meetup.participants.count() == 21


def test_ten_taps_of_one_member_on_ik_ga_mee_make_one_place():
    meetup, member = MeetupFactory(), UserFactory()
    results = run_concurrently(lambda _: meetup_join(user=member, meetup_id=meetup.pk), times=10)
    assert all(isinstance(result, MeetupParticipant) for result in results), results
    assert len({result.pk for result in results}) == 1
    assert MeetupParticipant.objects.filter(meetup=meetup, user=member).count() == 1


def test_joins_racing_a_cancel_are_either_told_or_refused_never_left_on_a_cancelled_afspraak():
    meetup = MeetupFactory()
    members = [UserFactory() for _ in range(15)]

    def act(index: int):
        if index == 7:
            return meetup_cancel(user=meetup.proposer, meetup_id=meetup.pk)
        return meetup_join(user=members[index], meetup_id=meetup.pk)

    results = run_concurrently(act, times=15)
    joined = [members[i] for i, result in enumerate(results) if i != 7 and isinstance(result, MeetupParticipant)]
    refused = [result for i, result in enumerate(results) if i != 7 and isinstance(result, TogetherError)]
    assert len(joined) + len(refused) == 14, results
    assert Meetup.objects.get(pk=meetup.pk).is_cancelled
    # Everyone who got in before the cancel is told; nobody got in after it.
    told = set(Mail.objects.filter(kind="meetup_cancelled").values_list("user_id", flat=True))
    assert told == {member.pk for member in joined}


def test_parallel_cancels_tell_each_member_once():
    meetup = MeetupFactory()
    members = [UserFactory() for _ in range(3)]
    for member in members:
        meetup_join(user=member, meetup_id=meetup.pk)
    results = run_concurrently(lambda _: meetup_cancel(user=meetup.proposer, meetup_id=meetup.pk), times=8)
    assert all(isinstance(result, Meetup) for result in results), results
    assert Mail.objects.filter(kind="meetup_cancelled").count() == 3


def test_joins_and_leaves_of_one_member_at_once_end_in_one_state():
    meetup, member = MeetupFactory(), UserFactory()

    def act(index: int):
        if index % 2:
            return meetup_leave(user=member, meetup_id=meetup.pk)
        return meetup_join(user=member, meetup_id=meetup.pk)

    results = run_concurrently(act, times=12)
    assert not any(isinstance(result, Exception) for result in results), results
    assert MeetupParticipant.objects.filter(meetup=meetup, user=member).count() in (0, 1)


def test_parallel_proposals_of_one_member_stop_at_the_limit():
    member = UserFactory()
    start = timezone.now() + datetime.timedelta(hours=2)

    def act(index: int):
        return meetup_propose(user=member, starts_at=start + datetime.timedelta(minutes=index), place="Sloterplas")

    results = run_concurrently(act, times=8)
    assert sum(isinstance(result, Meetup) for result in results) == MEETUP_MAX_OPEN
    assert all(isinstance(result, (Meetup, TogetherError)) for result in results), results
    assert Meetup.objects.filter(proposer=member).count() == MEETUP_MAX_OPEN


def _tag():
    tagger_card = UserChallengeFactory(started_at=timezone.now() - datetime.timedelta(days=5))
    dip = DipFactory(user_challenge=tagger_card, number=1, created_at=timezone.now() - datetime.timedelta(hours=1))
    buddy_card = UserChallengeFactory(started_at=timezone.now() - datetime.timedelta(days=5))
    return DipBuddyFactory(dip=dip, buddy=buddy_card.user), buddy_card


def test_ten_taps_on_zet_op_mijn_kaart_put_one_dip_on_the_card():
    tag, card = _tag()
    results = run_concurrently(lambda _: buddy_accept(user=card.user, tag_id=tag.pk), times=10)
    assert not any(isinstance(result, Exception) for result in results), results
    assert Dip.objects.filter(user_challenge=card).count() == 1
    assert len({result.dip.pk for result in results}) == 1
    tag.refresh_from_db()
    assert tag.status == DipBuddy.Status.ACCEPTED and tag.buddy_dip_id == results[0].dip.pk


def test_accept_and_decline_at_once_end_in_one_answer_that_the_card_agrees_with():
    tag, card = _tag()

    def act(index: int):
        if index % 2:
            return buddy_decline(user=card.user, tag_id=tag.pk)
        return buddy_accept(user=card.user, tag_id=tag.pk)

    results = run_concurrently(act, times=10)
    # The losers hear "Dit verzoek heb je al beantwoord."; nothing else goes wrong.
    assert all(isinstance(result, (DipOutcome, DipBuddy, TogetherError)) for result in results), results
    tag.refresh_from_db()
    dips = Dip.objects.filter(user_challenge=card).count()
    if tag.status == DipBuddy.Status.ACCEPTED:
        assert dips == 1 and tag.buddy_dip_id is not None
    else:
        assert tag.status == DipBuddy.Status.DECLINED and dips == 0
