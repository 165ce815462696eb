"""Undo under the card lock, with real threads on PostgreSQL."""

import pytest

from apps.challenges.models import Challenge, Dip, UserBadge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_undo
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_ten_undos_of_the_completing_dip_undo_it_once():
    requires_postgresql()
    user = UserFactory()
    card = challenge_start(user=user, challenge_id=Challenge.objects.get(target_dips=5).pk)
    for _ in range(4):
        dip_register(user=user)
    last = dip_register(user=user).dip

    results = run_concurrently(lambda _: dip_undo(user=user, dip_id=last.pk), times=10)

    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, ChallengeError) for r in results if isinstance(r, Exception)), results
    assert sorted(Dip.objects.filter(user_challenge=card).values_list("number", flat=True)) == [1, 2, 3, 4]
    card.refresh_from_db()
    assert card.completed_at is None and not UserBadge.objects.filter(user_challenge=card).exists()


def test_undo_and_new_taps_at_once_leave_a_consistent_card():
    requires_postgresql()
    user = UserFactory()
    card = challenge_start(user=user, challenge_id=Challenge.objects.get(category="waterdieren").pk)
    for _ in range(3):
        latest = dip_register(user=user).dip

    # One thread undoes dip 3 while others tap: either the undo wins before the taps, or a tap made a
    # newer dip first and the undo is refused. Never a gap or a double number.
    run_concurrently(lambda i: dip_undo(user=user, dip_id=latest.pk) if i == 0 else dip_register(user=user), times=6)

    numbers = sorted(Dip.objects.filter(user_challenge=card).values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) in (7, 8)
