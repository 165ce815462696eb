from unittest import mock

import pytest
from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.accounts.services import account_register, admin_grant, admin_revoke
from apps.invitations.models import Invitation
from tests.factories import InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db

GOOD = {"code": "ABCD2345", "full_name": "Nieuwe Zwemmer", "email": "nieuw@example.nl", "password": "ijskoud1"}


def register(**overrides):
    return account_register(**{**GOOD, "newsletter_consent": False, **overrides})


def errors_of(exc_info) -> dict:
    return {field: list(messages) for field, messages in exc_info.value.message_dict.items()}


def assert_nothing_written(invitation):
    assert not User.objects.filter(email__iexact=GOOD["email"]).exists()
    invitation.refresh_from_db()
    assert invitation.used_at is None and invitation.used_by is None


def test_register_creates_the_member_and_uses_the_invitation():
    invitation = InvitationFactory(code="ABCD2345")
    user = register(
        email="  Nieuw@Example.NL ", full_name="  Nieuwe Zwemmer ", newsletter_consent=True, code=" abcd2345"
    )
    assert user.email == "nieuw@example.nl"
    assert user.full_name == "Nieuwe Zwemmer"
    assert user.newsletter_consent is True
    assert not user.is_admin
    assert authenticate(email="nieuw@example.nl", password="ijskoud1") == user
    invitation.refresh_from_db()
    assert invitation.used_by == user
    assert invitation.used_at is not None and invitation.status == Invitation.Status.USED


def test_register_with_an_invitation_for_this_address():
    InvitationFactory(code="ABCD2345", email="nieuw@example.nl")
    assert register(email="NIEUW@example.nl").email == "nieuw@example.nl"


@pytest.mark.parametrize(
    ("invitation", "overrides", "field", "message"),
    [
        ({}, {"code": ""}, "code", "Een uitnodigingscode is verplicht om te registreren"),
        ({}, {"code": "   "}, "code", "Een uitnodigingscode is verplicht om te registreren"),
        ({}, {"code": "WRONG999"}, "code", "Ongeldige uitnodigingscode"),
        ({"used_at": timezone.now()}, {}, "code", "Deze uitnodigingscode is al gebruikt"),
        (
            {"created_at": timezone.now() - timezone.timedelta(days=31), "expires_at": timezone.now()},
            {},
            "code",
            "Deze uitnodigingscode is verlopen",
        ),
        ({"email": "iemand@anders.nl"}, {}, "code", "Deze uitnodigingscode is bedoeld voor een ander e-mailadres"),
        ({}, {"full_name": ""}, "full_name", "Vul je naam in"),
        ({}, {"full_name": "   \t"}, "full_name", "Vul je naam in"),
        ({}, {"email": ""}, "email", "Vul je e-mailadres in"),
        ({}, {"email": "geen-adres"}, "email", "Vul een geldig e-mailadres in"),
        ({}, {"password": "12345"}, "password", "Je wachtwoord moet minstens 6 tekens lang zijn"),
        ({}, {"password": ""}, "password", "Je wachtwoord moet minstens 6 tekens lang zijn"),
    ],
    ids=[
        "empty-code",
        "blank-code",
        "wrong-code",
        "used-code",
        "expired-code",
        "foreign-email-code",
        "empty-name",
        "blank-name",
        "empty-email",
        "bad-email",
        "short-password",
        "no-password",
    ],
)
def test_register_refuses_with_the_dutch_message_and_writes_nothing(invitation, overrides, field, message):
    stored = InvitationFactory(code="ABCD2345", **invitation)
    used_before = stored.used_at
    with pytest.raises(ValidationError) as exc_info:
        register(**overrides)
    assert errors_of(exc_info)[field] == [message]
    assert not User.objects.filter(email__iexact=GOOD["email"]).exists()
    stored.refresh_from_db()
    assert stored.used_at == used_before and stored.used_by is None


@pytest.mark.parametrize("email", ["bestaand@example.nl", "Bestaand@Example.NL"])
def test_an_address_with_an_account_is_refused_and_the_invitation_stays_unused(email):
    UserFactory(email="bestaand@example.nl")
    invitation = InvitationFactory(code="ABCD2345")
    with pytest.raises(ValidationError) as exc_info:
        register(email=email)
    assert errors_of(exc_info) == {
        "email": ["Er bestaat al een account met dit e-mailadres. Log in, of kies 'Wachtwoord vergeten?'."]
    }
    assert User.objects.count() == 1
    invitation.refresh_from_db()
    assert invitation.used_at is None


def test_all_input_errors_come_back_together():
    InvitationFactory(code="ABCD2345")
    with pytest.raises(ValidationError) as exc_info:
        register(code="", full_name="", email="x", password="1")
    assert set(errors_of(exc_info)) == {"code", "full_name", "email", "password"}


def test_when_the_invitation_cannot_be_consumed_the_new_user_is_rolled_back():
    # The check without a lock passes, the check under the lock fails: what a lost race looks like.
    invitation = InvitationFactory(code="ABCD2345")
    with (
        mock.patch(
            "apps.accounts.services.invitation_consume",
            side_effect=ValidationError("Deze uitnodigingscode is al gebruikt", code="used"),
        ),
        pytest.raises(ValidationError) as exc_info,
    ):
        register()
    assert errors_of(exc_info) == {"code": ["Deze uitnodigingscode is al gebruikt"]}
    assert_nothing_written(invitation)


def test_an_unexpected_database_conflict_gives_the_generic_message_and_writes_nothing():
    invitation = InvitationFactory(code="ABCD2345")
    real_create_user = User.objects.create_user

    def conflicting_insert(email, password, **extra):
        User.objects.bulk_create([User(email=email, full_name="Dubbel")])
        return real_create_user(email, password, **extra)  # violates the unique e-mail constraint

    with (
        mock.patch.object(User.objects, "create_user", side_effect=conflicting_insert),
        pytest.raises(ValidationError) as exc_info,
    ):
        register()
    # The conflicting row was rolled back with our own block, so no account explains it: generic text.
    assert exc_info.value.messages == ["Er ging iets mis bij het registreren"]
    assert_nothing_written(invitation)


# --- admin role -------------------------------------------------------------------------------


def test_admin_grant_and_revoke(member, admin_user):  # admin_user: the club keeps an active admin
    assert not member.has_admin_role
    assert admin_grant(user=member) is True
    assert member.has_admin_role
    assert admin_grant(user=member) is False
    assert UserRole.objects.filter(user=member, role="admin").count() == 1
    assert admin_revoke(user=member) is True
    assert not member.has_admin_role
    assert admin_revoke(user=member) is False
    assert not User.objects.get(pk=member.pk).has_admin_role
