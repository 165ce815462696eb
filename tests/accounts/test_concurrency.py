"""Simultaneous sign-ups on PostgreSQL, with real threads and one database connection each."""

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import User
from apps.accounts.removal import MESSAGE_LAST_ACTIVE_ADMIN, AdminActionError, user_save
from apps.accounts.services import account_register
from apps.invitations.models import Invitation
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import AdminFactory, InvitationFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_twenty_simultaneous_sign_ups_with_one_code_make_exactly_one_account():
    requires_postgresql()
    InvitationFactory(code="SAMEC0DE")

    def sign_up(index):
        return account_register(
            code="SAMEC0DE",
            full_name=f"Zwemmer {index}",
            email=f"zwemmer{index}@example.nl",
            password="ijskoud-123",
            newsletter_consent=False,
        )

    results = run_concurrently(sign_up, times=20)

    users = [result for result in results if isinstance(result, User)]
    refusals = [result for result in results if isinstance(result, ValidationError)]
    assert len(users) == 1, results
    assert len(refusals) == 19, results
    assert all(refusal.message_dict == {"code": ["Deze uitnodigingscode is al gebruikt"]} for refusal in refusals)
    assert User.objects.count() == 1
    invitation = Invitation.objects.get()
    assert invitation.used_by == users[0] and invitation.used_at is not None


def test_twenty_simultaneous_sign_ups_with_one_address_make_exactly_one_account():
    requires_postgresql()
    for index in range(20):
        InvitationFactory(code=f"CODE{index:04d}")

    def sign_up(index):
        return account_register(
            code=f"CODE{index:04d}",
            full_name="Dubbele Zwemmer",
            email="dubbel@example.nl" if index % 2 else "DUBBEL@example.nl",
            password="ijskoud-123",
            newsletter_consent=False,
        )

    results = run_concurrently(sign_up, times=20)

    users = [result for result in results if isinstance(result, User)]
    refusals = [result for result in results if isinstance(result, ValidationError)]
    assert len(users) == 1, results
    assert len(refusals) == 19, results
    assert all("email" in refusal.message_dict for refusal in refusals), results
    assert User.objects.count() == 1
    # Only the winner's invitation is used; every other code can still be used by someone else.
    assert Invitation.objects.filter(used_at__isnull=False).count() == 1


def test_two_admins_switching_each_other_off_at_once_leave_one_active():
    requires_postgresql()
    first, second = AdminFactory(email="een@example.nl"), AdminFactory(email="twee@example.nl")

    def switch_off(index):
        user = User.objects.get(pk=(first, second)[index].pk)
        user.is_active = False
        return user_save(user=user)

    results = run_concurrently(switch_off, times=2)

    refusals = [result for result in results if isinstance(result, AdminActionError)]
    assert len(refusals) == 1, results
    assert str(refusals[0]) == MESSAGE_LAST_ACTIVE_ADMIN
    assert User.objects.filter(pk__in=[first.pk, second.pk], is_active=True).count() == 1
