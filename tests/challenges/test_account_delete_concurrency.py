"""Deleting an account while its member taps: one lock order (the member's row, then the card), so the two
wait for each other instead of deadlocking. Real threads on PostgreSQL, lined up in the deadlocking order."""

import threading

import pytest
from django.db import DatabaseError, transaction

from apps.accounts.models import User
from apps.accounts.removal import user_delete
from apps.challenges.models import Challenge, Dip
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_undo
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.concurrency import in_thread, requires_postgresql, wait_for_lock_waiters
from tests.factories import AdminFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("action", ["register", "undo"])
def test_an_account_deleted_while_its_member_taps_is_deleted_and_the_tap_refused_in_dutch(action):
    requires_postgresql()
    admin, member = AdminFactory(), UserFactory()
    challenge_start(user=member, challenge_id=Challenge.objects.get(category="waterdieren").pk)
    first = dip_register(user=member).dip
    latest = dip_register(user=member).dip

    # A third transaction holds the member's first dip: the deletion locks the member and then waits on it
    # while deleting the dips, before it reaches the card. The tap comes in exactly then.
    held, release = threading.Event(), threading.Event()

    def hold_a_dip():
        with transaction.atomic():
            Dip.objects.select_for_update().filter(pk=first.pk).first()
            held.set()
            release.wait(30)

    holder = in_thread(hold_a_dip)
    assert held.wait(30)
    deletion = in_thread(lambda: user_delete(actor=admin, user_id=member.pk))
    wait_for_lock_waiters(1)
    if action == "register":
        tap = in_thread(lambda: dip_register(user=member))
    else:
        tap = in_thread(lambda: dip_undo(user=member, dip_id=latest.pk))
    wait_for_lock_waiters(2)
    release.set()

    holder()
    deleted, tapped = deletion(), tap()
    assert not isinstance(deleted, DatabaseError), deleted
    assert not isinstance(tapped, DatabaseError), tapped
    assert deleted is None and not User.objects.filter(pk=member.pk).exists()
    assert isinstance(tapped, ChallengeError)
    assert not Dip.objects.filter(user_id=member.pk).exists()
