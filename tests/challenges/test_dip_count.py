"""`User.dip_count` (the admin users table sorts on it) follows every service that adds or removes dips."""

import datetime

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Challenge, Dip, UserChallenge
from apps.challenges.services.cards import challenge_start, challenge_stop, user_challenge_delete
from apps.challenges.services.dip_changes import dip_delete, dip_undo
from apps.challenges.services.dips import MESSAGE_UNDO_TOO_LATE, UNDO_WINDOW, dip_register
from apps.challenges.services.errors import ChallengeError
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def stored_count(user) -> int:
    return User.objects.values_list("dip_count", flat=True).get(pk=user.pk)


def dips_on_days(user, challenge, days: int) -> list:
    card = challenge_start(user=user, challenge_id=challenge.pk)
    start = timezone.now() - datetime.timedelta(days=days)
    return [dip_register(user=user, now=start + datetime.timedelta(days=n)) for n in range(days)], card


def test_dip_register_counts_once_and_a_replay_does_not_count_again(member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    first = dip_register(user=member, request_id="7f0c1a2e-0000-4000-8000-000000000001")
    assert stored_count(member) == 1
    again = dip_register(user=member, request_id="7f0c1a2e-0000-4000-8000-000000000001")
    assert again.replayed and again.dip.pk == first.dip.pk
    assert stored_count(member) == 1


def test_dip_delete_counts_down(member):
    (outcomes, _card) = dips_on_days(member, Challenge.objects.get(target_dips=5), 3)
    dip_delete(dip_id=outcomes[1].dip.pk)
    assert stored_count(member) == 2 == Dip.objects.filter(user=member).count()


def test_undo_at_the_edge_of_the_window_counts_down(member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    dip_register(user=member)
    latest = dip_register(user=member).dip
    dip_undo(user=member, dip_id=latest.pk, now=latest.created_at + UNDO_WINDOW)
    assert stored_count(member) == 1 == Dip.objects.filter(user=member).count()


def test_undo_a_second_after_the_window_is_refused_and_keeps_the_count(member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    dip_register(user=member)
    latest = dip_register(user=member).dip
    with pytest.raises(ChallengeError, match=MESSAGE_UNDO_TOO_LATE):
        dip_undo(user=member, dip_id=latest.pk, now=latest.created_at + UNDO_WINDOW + datetime.timedelta(seconds=1))
    assert stored_count(member) == 2 == Dip.objects.filter(user=member).count()


def test_stopping_or_an_admin_deleting_a_card_takes_its_dips_off_the_count(member, other_member):
    _outcomes, card = dips_on_days(member, Challenge.objects.get(target_dips=5), 3)
    challenge_stop(user=member, user_challenge_id=card.pk)
    assert stored_count(member) == 0
    _outcomes, card = dips_on_days(other_member, Challenge.objects.get(target_dips=5), 4)
    user_challenge_delete(user_challenge_id=card.pk)
    assert stored_count(other_member) == 0


def test_a_finished_card_keeps_counting_when_the_next_one_starts(member):
    dips_on_days(member, Challenge.objects.get(target_dips=5), 5)
    dips_on_days(member, Challenge.objects.get(target_dips=5), 2)
    assert stored_count(member) == 7 == Dip.objects.filter(user=member).count()


def test_the_backfill_migration_counts_every_members_dips(member, transactional_db):
    dips_on_days(member, Challenge.objects.get(target_dips=5), 3)
    nobody = UserFactory()
    User.objects.update(dip_count=99)  # as if the counter had never been kept
    call_command("migrate", "challenges", "0003", verbosity=0)
    # Forward again for every app: going back also took off the apps that depend on a later challenges
    # migration (attendance), and the tests after this one need their tables.
    call_command("migrate", verbosity=0)
    assert stored_count(member) == 3 and stored_count(nobody) == 0


def test_deleting_dips_or_a_card_in_the_django_admin_keeps_the_count(admin_client, member):
    outcomes, card = dips_on_days(member, Challenge.objects.get(target_dips=5), 4)
    selected = [outcomes[0].dip.pk, outcomes[2].dip.pk]
    response = admin_client.post(
        reverse("admin:challenges_dip_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )
    assert response.status_code == 302
    assert stored_count(member) == 2 == Dip.objects.filter(user=member).count()
    response = admin_client.post(reverse("admin:challenges_userchallenge_delete", args=[card.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert stored_count(member) == 0


def test_a_count_gone_wrong_heals_on_the_members_next_dip(member):
    card = challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    # Written past the services (as a bulk import would): the counter does not know these two.
    Dip.objects.bulk_create([Dip(user=member, user_challenge=card, number=n, dip_date=f"2026-11-0{n}") for n in (1, 2)])
    assert stored_count(member) == 0
    dip_register(user=member)
    assert stored_count(member) == 3


def test_parallel_dips_and_deletes_leave_the_count_true(transactional_db):
    requires_postgresql()
    member = UserFactory()
    old = challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    start = timezone.now() - datetime.timedelta(days=10)
    finished = [dip_register(user=member, now=start + datetime.timedelta(days=n)).dip.pk for n in range(5)]
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    assert old.pk != UserChallenge.objects.get(user=member, is_active=True).pk

    # Ten taps on the new card (its own lock) while four dips of the finished card go (that card's lock):
    # two locks, one member row.
    results = run_concurrently(
        lambda n: dip_register(user=member) if n < 10 else dip_delete(dip_id=finished[n - 10]), times=14
    )

    assert not any(isinstance(result, Exception) for result in results), results
    assert stored_count(member) == Dip.objects.filter(user=member).count() == 11
