"""Club challenges under parallel taps (PostgreSQL, real threads): joins, dips counting a day once, and a club
goal's total reached by many members at once."""

import pytest

from apps.challenges.models import ClubChallenge, ClubChallengeEntry, Dip
from apps.challenges.selectors import club_challenges_for
from apps.challenges.services.club_challenges import club_challenge_join, club_challenge_leave
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import ClubChallengeEntryFactory, ClubChallengeFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_twenty_taps_on_doe_mee_make_one_entry():
    requires_postgresql()
    user, challenge = UserFactory(), ClubChallengeFactory()

    results = run_concurrently(lambda _: club_challenge_join(user=user, club_challenge_id=challenge.pk), times=20)

    assert not any(isinstance(r, Exception) for r in results), results
    assert sum(r.created for r in results) == 1  # type: ignore[union-attr]
    assert ClubChallengeEntry.objects.filter(user=user).count() == 1


def test_many_members_joining_at_once_are_all_counted():
    requires_postgresql()
    challenge = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=100)
    users = UserFactory.create_batch(12)

    results = run_concurrently(lambda i: club_challenge_join(user=users[i], club_challenge_id=challenge.pk), times=12)

    assert not any(isinstance(r, Exception) for r in results), results
    assert challenge.entries.count() == 12
    assert club_challenges_for(users[0])[0].participants == 12


def test_joins_and_leaves_at_once_end_in_one_entry_or_none():
    requires_postgresql()
    user, challenge = UserFactory(), ClubChallengeFactory()

    def tap(index):
        if index % 2:
            return club_challenge_leave(user=user, club_challenge_id=challenge.pk)
        return club_challenge_join(user=user, club_challenge_id=challenge.pk)

    results = run_concurrently(tap, times=16)

    assert not any(isinstance(r, Exception) for r in results), results
    assert ClubChallengeEntry.objects.filter(user=user).count() in (0, 1)


def test_parallel_dips_without_a_card_count_the_day_once_and_complete_once():
    requires_postgresql()
    user = UserFactory()
    days = ClubChallengeEntryFactory(
        user=user, club_challenge=ClubChallengeFactory(kind=ClubChallenge.Kind.DAYS, target=1)
    ).club_challenge

    results = run_concurrently(lambda _: dip_register(user=user), times=10)

    assert not any(isinstance(r, Exception) for r in results), results
    # Ten dips on one day (no daily limit here): one day done, and the completion came exactly once.
    assert Dip.objects.filter(user=user, user_challenge=None).count() == 10
    assert sorted(Dip.objects.values_list("number", flat=True)) == list(range(1, 11))
    assert club_challenges_for(user)[0].days_done == 1
    assert sum(len(r.club_completed) for r in results) == 1  # type: ignore[union-attr]
    assert ClubChallengeEntry.objects.get(club_challenge=days).completed_at is not None


def test_parallel_dips_with_the_daily_limit_make_one_dip(settings):
    requires_postgresql()
    settings.DIP_DAILY_LIMIT_ENABLED = True
    user = UserFactory()
    ClubChallengeEntryFactory(user=user)

    results = run_concurrently(lambda _: dip_register(user=user), times=10)

    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, ChallengeError) for r in results if isinstance(r, Exception)), results
    assert Dip.objects.filter(user=user).count() == 1


def test_a_club_goal_reached_by_parallel_dips_of_many_members_is_seen_and_completes_everyone_once():
    requires_postgresql()
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=15)
    users = UserFactory.create_batch(20)
    for user in users:
        ClubChallengeEntryFactory(user=user, club_challenge=goal)

    results = run_concurrently(lambda i: dip_register(user=users[i]), times=20)

    assert not any(isinstance(r, Exception) for r in results), results
    assert club_challenges_for(users[0])[0].total == 20
    entries = ClubChallengeEntry.objects.filter(club_challenge=goal)
    assert entries.filter(completed_at__isnull=True).count() == 0
    # The dip that reached the goal completed it for everyone: one completion moment, never two.
    assert entries.values("completed_at").distinct().count() == 1
    completed_by = [r for r in results if r.club_completed]  # type: ignore[union-attr]
    assert len(completed_by) == 1


def test_dips_joins_leaves_and_an_account_deletion_at_once_on_one_club_goal_never_deadlock():
    requires_postgresql()
    from apps.accounts.removal import user_delete
    from tests.factories import AdminFactory

    admin = AdminFactory()
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=6)
    dippers = UserFactory.create_batch(8)
    leavers = UserFactory.create_batch(4)
    joiners = UserFactory.create_batch(4)
    deleted = UserFactory()
    for user in [*dippers, *leavers, deleted]:
        ClubChallengeEntryFactory(user=user, club_challenge=goal)

    def act(index):
        if index < 8:
            return dip_register(user=dippers[index])
        if index < 12:
            return club_challenge_leave(user=leavers[index - 8], club_challenge_id=goal.pk)
        if index < 16:
            return club_challenge_join(user=joiners[index - 12], club_challenge_id=goal.pk)
        return user_delete(actor=admin, user_id=deleted.pk)

    results = run_concurrently(act, times=17)

    # A leave that comes after the goal was reached is refused (the badge is kept); nothing else fails.
    kept = [r for r in results[8:12] if isinstance(r, ChallengeError) and "voltooid" in str(r)]
    assert not any(isinstance(r, Exception) for r in results[:8] + results[12:]), results
    assert all(r is True or r in kept for r in results[8:12]), results
    entries = ClubChallengeEntry.objects.filter(club_challenge=goal)
    assert entries.count() == 12 + len(kept) and club_challenges_for(dippers[0])[0].total == 8
    # Whoever took part when the goal was reached, or joined after, has it completed.
    assert entries.filter(user__in=dippers, completed_at__isnull=False).count() == 8
