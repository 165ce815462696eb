import pytest

from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_delete
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import DipFactory, UserChallengeFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_twenty_taps_on_a_card_at_99_make_one_dip_one_completion_one_badge():
    requires_postgresql()
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    user = UserFactory()
    card = UserChallengeFactory(user=user, challenge=waterdieren)
    Dip.objects.bulk_create(
        [Dip(user=user, user_challenge=card, number=n, dip_date="2026-11-01") for n in range(1, 100)]
    )

    results = run_concurrently(lambda _: dip_register(user=user), times=20)

    succeeded = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, ChallengeError)]
    assert len(succeeded) == 1 and len(refused) == 19, results
    assert succeeded[0].completed and succeeded[0].badge.name == "IJsvogel"
    assert Dip.objects.filter(user_challenge=card).count() == 100
    assert UserBadge.objects.filter(user_challenge=card, badge__milestone_dips=100).count() == 1
    card.refresh_from_db()
    assert card.completed_at is not None


def test_twenty_taps_on_start_make_one_card():
    requires_postgresql()
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    user = UserFactory()

    results = run_concurrently(lambda _: challenge_start(user=user, challenge_id=waterdieren.pk), times=20)

    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, ChallengeError) for r in results if isinstance(r, Exception)), results
    assert UserChallenge.objects.filter(user=user, is_active=True).count() == 1


def test_parallel_dips_on_a_fresh_card_get_distinct_numbers():
    requires_postgresql()
    user = UserFactory()
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = UserChallengeFactory(user=user, challenge=waterdieren)
    DipFactory(user_challenge=card, number=1)

    results = run_concurrently(lambda _: dip_register(user=user), times=10)

    assert not any(isinstance(r, Exception) for r in results), results
    assert sorted(card.dips.values_list("number", flat=True)) == list(range(1, 12))
    assert UserBadge.objects.filter(user_challenge=card).count() == 2  # 5 and 10


def test_deletes_and_new_dips_at_once_leave_the_card_numbered_without_gaps():
    """The admin deletes ten dips while the member taps ten times: every dip gets through, no number collides."""
    requires_postgresql()
    user = UserFactory()
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = challenge_start(user=user, challenge_id=waterdieren.pk)
    doomed = [dip_register(user=user).dip.pk for _ in range(30)][::3]

    def work(index: int):
        return dip_delete(dip_id=doomed[index // 2]) if index % 2 == 0 else dip_register(user=user)

    results = run_concurrently(work, times=20)

    assert not any(isinstance(r, Exception) for r in results), results
    assert sorted(card.dips.values_list("number", flat=True)) == list(range(1, 31))
    badges = sorted(UserBadge.objects.filter(user_challenge=card).values_list("badge__milestone_dips", flat=True))
    assert badges == sorted(waterdieren.badges.filter(milestone_dips__lte=30).values_list("milestone_dips", flat=True))
