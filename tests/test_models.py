"""The invariants the database itself guards."""

import datetime

import pytest
from allauth.mfa.totp.internal.auth import TOTP
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.challenges.catalogue import CHALLENGES
from apps.challenges.models import Badge, Challenge, UserChallenge
from apps.invitations.models import Invitation
from tests.factories import (
    TOTP_SECRET,
    AdminFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    InvitationFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def refused(callable_):
    with pytest.raises(IntegrityError), transaction.atomic():
        callable_()


def test_email_is_unique_whatever_its_case():
    UserFactory(email="els@example.nl")
    refused(lambda: User.objects.create(email="ELS@example.nl", full_name="Els"))


def test_create_user_normalises_email_to_lower_case():
    user = User.objects.create_user("Piet@Example.NL", "geheim123", full_name="Piet")
    assert user.email == "piet@example.nl"
    assert User.objects.get_by_natural_key("PIET@example.nl") == user


def test_createsuperuser_gets_the_admin_role():
    user = User.objects.create_superuser("baas@example.nl", "geheim123", full_name="Baas")
    assert user.roles.filter(role=UserRole.Role.ADMIN).exists()
    assert user.has_admin_role


def test_admin_role_is_the_one_source_of_truth():
    user = UserFactory()
    assert not user.is_admin and not user.is_staff and not user.has_perm("challenges.change_dip")
    UserRole.objects.create(user=user, role=UserRole.Role.ADMIN)
    fresh = User.objects.get(pk=user.pk)
    assert fresh.has_admin_role
    # The role alone gives no power: acting as admin needs a second factor too.
    assert not fresh.is_admin and not fresh.is_staff and not fresh.has_perm("challenges.change_dip")
    TOTP.activate(fresh, TOTP_SECRET)
    fresh = User.objects.get(pk=user.pk)
    assert fresh.is_admin and fresh.is_staff and fresh.has_perm("challenges.change_dip")
    refused(lambda: UserRole.objects.create(user=user, role=UserRole.Role.ADMIN))


def test_acting_as_admin_is_read_in_one_query_per_user_object(django_assert_num_queries):
    admin = User.objects.get(pk=AdminFactory().pk)
    with django_assert_num_queries(1):
        assert admin.is_admin and admin.has_admin_role and admin.is_staff and admin.has_perm("challenges.change_dip")
    bare = User.objects.get(pk=AdminFactory(second_factor=False).pk)
    with django_assert_num_queries(1):
        assert bare.has_admin_role and not bare.is_admin and not bare.is_staff


def test_one_active_challenge_per_user_so_at_most_one_waterdieren_card():
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = UserChallengeFactory(challenge=waterdieren)
    refused(lambda: UserChallengeFactory(user=card.user, challenge=waterdieren))
    card.is_active = False
    card.save()
    UserChallengeFactory(user=card.user, challenge=waterdieren)  # an archived card does not count


def test_a_badge_is_earned_once_per_user_challenge():
    award = UserBadgeFactory()
    refused(lambda: UserBadgeFactory(user_challenge=award.user_challenge, badge=award.badge))


def test_a_stamp_card_number_is_used_once():
    dip = DipFactory(number=1)
    refused(lambda: DipFactory(user_challenge=dip.user_challenge, number=1))


def test_one_participation_per_user_and_event():
    participation = EventParticipantFactory()
    refused(lambda: EventParticipantFactory(event=participation.event, user=participation.user))


def test_event_maximum_must_be_positive():
    refused(lambda: EventFactory(max_participants=0))


def test_invitation_codes_are_unique_and_well_formed():
    InvitationFactory(code="ABCD1234")
    refused(lambda: InvitationFactory(code="ABCD1234"))
    refused(lambda: InvitationFactory(code="abcd1234"))
    # Codes moved in from the original app may have another shape (issue 33): upper case, digits, - and _,
    # 4 to 32 long (the column's length), as the sign-up form takes them; nothing else.
    refused(lambda: InvitationFactory(code="ABC"))
    refused(lambda: InvitationFactory(code="ABC 1234"))
    InvitationFactory(code="WELKOM-2025")


def test_invitation_status():
    now = timezone.now()
    active = InvitationFactory()
    expired = InvitationFactory(
        created_at=now - datetime.timedelta(days=31), expires_at=now - datetime.timedelta(days=1)
    )
    used = InvitationFactory(used_at=now, used_by=UserFactory())
    assert active.status == Invitation.Status.ACTIVE and active.status.label == "Actief"
    assert expired.status.label == "Verlopen"
    assert used.status.label == "Gebruikt"


def test_catalogue_is_seeded_by_migration():
    # Its numbers are the product's (tests/test_spec_numbers.py); here: the migration installs all of it.
    for entry in CHALLENGES:
        challenge = Challenge.objects.get(name=entry["name"])
        assert (challenge.category, challenge.target_dips) == (entry["category"], entry["target_dips"])
        badges = list(Badge.objects.filter(challenge=challenge).values_list("milestone_dips", "name"))
        assert badges == [(milestone, name) for milestone, name, _text, _art in entry["badges"]]
    starter = Challenge.objects.get(target_dips=5)
    assert starter.is_active and starter.category == "normal"


def test_seed_catalogue_is_idempotent():
    from django.core.management import call_command

    call_command("seed_catalogue")
    call_command("seed_catalogue")
    assert Challenge.objects.filter(name="Waterdieren Stempelkaart").count() == 1
    assert Badge.objects.count() == 7
    assert UserChallenge.objects.count() == 0
