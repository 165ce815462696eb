import datetime
import re

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.invitations.models import Invitation
from apps.invitations.services import (
    invitation_bulk_create,
    invitation_consume,
    invitation_create,
    invitation_delete,
    invitation_validate,
    invitations_cleanup_expired,
)
from tests.factories import InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db

NOW = timezone.make_aware(datetime.datetime(2026, 1, 15, 12, 0))


# --- create -----------------------------------------------------------------------------------


def test_create_gives_an_8_character_code_valid_for_30_days(admin_user):
    invitation = invitation_create(invited_by=admin_user, now=NOW)
    assert re.fullmatch(r"[A-Z0-9]{8}", invitation.code)
    assert invitation.email is None
    assert invitation.invited_by == admin_user
    assert invitation.expires_at == NOW + datetime.timedelta(days=30)
    assert invitation.status_at(NOW) == Invitation.Status.ACTIVE


def test_create_with_an_address_stores_it_lower_cased():
    assert invitation_create(email="  Nieuw@Zwemmer.NL ").email == "nieuw@zwemmer.nl"


def test_create_with_a_blank_address_is_a_generic_code():
    assert invitation_create(email="   ").email is None


def test_create_refuses_an_address_of_the_wrong_shape():
    with pytest.raises(ValidationError) as exc:
        invitation_create(email="geen-adres")
    assert exc.value.messages == ["Vul een geldig e-mailadres in"]
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda: UserFactory(email="Bestaand@Example.nl"), "Dit e-mailadres heeft al een account"),
        (
            lambda: InvitationFactory(email="BESTAAND@example.nl", created_at=NOW),
            "Dit e-mailadres heeft al een openstaande uitnodiging",
        ),
    ],
)
def test_create_refuses_an_address_the_bulk_path_would_skip(admin_user, setup, message):
    setup()
    before = Invitation.objects.count()
    with pytest.raises(ValidationError) as exc:
        invitation_create(invited_by=admin_user, email=" bestaand@EXAMPLE.nl", now=NOW)
    assert exc.value.messages == [message]
    assert Invitation.objects.count() == before
    # The bulk path skips the same address for the same reason: one rule.
    with pytest.raises(ValidationError):
        invitation_bulk_create(invited_by=admin_user, text="bestaand@example.nl", now=NOW)


@pytest.mark.parametrize(
    "old",
    [
        {"expires_at": NOW - datetime.timedelta(seconds=1)},  # expired
        {"used_at": NOW - datetime.timedelta(days=1)},  # used by someone who since deleted their account
    ],
)
def test_create_invites_again_once_the_old_invitation_is_no_longer_open(admin_user, old):
    InvitationFactory(email="terug@example.nl", created_at=NOW - datetime.timedelta(days=40), **old)
    assert invitation_create(invited_by=admin_user, email="terug@example.nl", now=NOW).email == "terug@example.nl"


def test_codes_are_unique():
    codes = {invitation_create().code for _ in range(50)}
    assert len(codes) == 50


# --- validate ---------------------------------------------------------------------------------


def test_a_generic_unused_unexpired_code_is_valid_for_anyone():
    invitation = InvitationFactory(code="ABCD2345")
    check = invitation_validate(code="ABCD2345", email="wie@dan.ook")
    assert check.is_valid and check.invitation == invitation


def test_the_code_is_trimmed_and_case_insensitive():
    InvitationFactory(code="ABCD2345")
    assert invitation_validate(code="  abcd2345 \n", email="a@b.nl").is_valid


def test_a_code_for_one_address_is_valid_for_that_address_in_any_case():
    InvitationFactory(code="ABCD2345", email="marit@example.nl")
    assert invitation_validate(code="ABCD2345", email="Marit@Example.NL").is_valid


@pytest.mark.parametrize(
    ("setup", "code", "email", "message"),
    [
        ({}, "", "a@b.nl", "Een uitnodigingscode is verplicht om te registreren"),
        ({}, "   ", "a@b.nl", "Een uitnodigingscode is verplicht om te registreren"),
        ({}, "ZZZZ9999", "a@b.nl", "Ongeldige uitnodigingscode"),
        ({}, "ABC", "a@b.nl", "Ongeldige uitnodigingscode"),
        ({}, "ABCD2345'; --", "a@b.nl", "Ongeldige uitnodigingscode"),
        ({"used_at": NOW}, "ABCD2345", "a@b.nl", "Deze uitnodigingscode is al gebruikt"),
        ({"expires_at": NOW}, "ABCD2345", "a@b.nl", "Deze uitnodigingscode is verlopen"),
        ({"expires_at": NOW - datetime.timedelta(days=1)}, "ABCD2345", "a@b.nl", "Deze uitnodigingscode is verlopen"),
        (
            {"email": "marit@example.nl"},
            "ABCD2345",
            "otto@example.nl",
            "Deze uitnodigingscode is bedoeld voor een ander e-mailadres",
        ),
    ],
    ids=["empty", "blank", "unknown", "wrong-shape", "garbage", "used", "expires-now", "expired", "other-email"],
)
def test_refused_codes_say_why_in_dutch(setup, code, email, message):
    created_at = NOW - datetime.timedelta(days=40) if "expires_at" in setup else NOW - datetime.timedelta(days=1)
    InvitationFactory(code="ABCD2345", created_at=created_at, **setup)
    check = invitation_validate(code=code, email=email, now=NOW)
    assert not check.is_valid
    assert check.message == message


def test_validate_changes_nothing():
    invitation = InvitationFactory(code="ABCD2345")
    invitation_validate(code="ABCD2345", email="a@b.nl")
    invitation.refresh_from_db()
    assert invitation.used_at is None


# --- consume ----------------------------------------------------------------------------------


def test_consume_marks_the_invitation_used_by_the_user(member):
    invitation = InvitationFactory(code="ABCD2345")
    consumed = invitation_consume(code="abcd2345", email=member.email, user=member, now=NOW)
    invitation.refresh_from_db()
    assert consumed == invitation
    assert invitation.used_at == NOW and invitation.used_by == member
    assert invitation.status == Invitation.Status.USED


def test_consume_twice_is_refused(member, other_member):
    InvitationFactory(code="ABCD2345")
    invitation_consume(code="ABCD2345", email=member.email, user=member)
    with pytest.raises(ValidationError) as exc:
        invitation_consume(code="ABCD2345", email=other_member.email, user=other_member)
    assert exc.value.messages == ["Deze uitnodigingscode is al gebruikt"]
    assert Invitation.objects.get().used_by == member


@pytest.mark.parametrize(
    ("code", "setup", "message"),
    [
        ("", {}, "Een uitnodigingscode is verplicht om te registreren"),
        ("NOPE0000", {}, "Ongeldige uitnodigingscode"),
        ("ABCD2345", {"email": "iemand@anders.nl"}, "Deze uitnodigingscode is bedoeld voor een ander e-mailadres"),
    ],
)
def test_consume_refuses_invalid_codes_and_writes_nothing(member, code, setup, message):
    InvitationFactory(code="ABCD2345", **setup)
    with pytest.raises(ValidationError) as exc:
        invitation_consume(code=code, email=member.email, user=member)
    assert exc.value.messages == [message]
    assert Invitation.objects.get().used_at is None


# --- bulk -------------------------------------------------------------------------------------


def test_bulk_creates_one_invitation_per_new_address_and_skips_registered_ones(admin_user):
    UserFactory(email="bestaand@example.nl")
    text = "Nieuw1@Example.nl, bestaand@example.NL; nieuw2@example.nl\nnieuw1@example.nl en onzin@ en @niks"
    result = invitation_bulk_create(invited_by=admin_user, text=text, now=NOW)
    assert sorted(invitation.email for invitation in result.created) == ["nieuw1@example.nl", "nieuw2@example.nl"]
    assert result.skipped == ["bestaand@example.nl"]
    stored = Invitation.objects.order_by("email")
    assert [(i.email, i.invited_by, i.expires_at) for i in stored] == [
        ("nieuw1@example.nl", admin_user, NOW + datetime.timedelta(days=30)),
        ("nieuw2@example.nl", admin_user, NOW + datetime.timedelta(days=30)),
    ]
    assert all(re.fullmatch(r"[A-Z0-9]{8}", i.code) for i in stored)


def test_bulk_without_any_valid_address_is_an_error(admin_user):
    with pytest.raises(ValidationError) as exc:
        invitation_bulk_create(invited_by=admin_user, text="geen adressen, alleen @ en tekst@")
    # What looked meant as an address is named (issue 34 §6), never dropped without a word.
    assert exc.value.messages == [
        "Geen geldige email adressen gevonden. Niet te lezen, dus niet uitgenodigd: alleen @ en, tekst@."
    ]
    assert not Invitation.objects.exists()


def test_bulk_where_everyone_is_registered_is_an_error(admin_user):
    UserFactory(email="een@example.nl")
    UserFactory(email="twee@example.nl")
    with pytest.raises(ValidationError) as exc:
        invitation_bulk_create(invited_by=admin_user, text="EEN@example.nl twee@example.nl")
    assert exc.value.messages == ["Alle email adressen zijn al geregistreerd"]
    assert not Invitation.objects.exists()


def test_bulk_handles_many_addresses_with_unique_codes(admin_user, django_assert_max_num_queries):
    text = "\n".join(f"zwemmer{i}@voorbeeld.nl" for i in range(1200))
    with django_assert_max_num_queries(20):
        result = invitation_bulk_create(invited_by=admin_user, text=text)
    assert len(result.created) == 1200
    assert Invitation.objects.values("code").distinct().count() == 1200


# --- delete and clean-up ----------------------------------------------------------------------


def test_delete_removes_the_invitation():
    invitation = InvitationFactory()
    invitation_delete(invitation=invitation)
    assert not Invitation.objects.exists()


def test_cleanup_deletes_only_expired_unused_invitations(member):
    long_ago = NOW - datetime.timedelta(days=60)
    expired = InvitationFactory(created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30))
    InvitationFactory(created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30))
    used_and_expired = InvitationFactory(
        created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30), used_at=long_ago, used_by=member
    )
    active = InvitationFactory(created_at=NOW, expires_at=NOW + datetime.timedelta(days=30))
    assert invitations_cleanup_expired(now=NOW) == 2
    assert set(Invitation.objects.all()) == {used_and_expired, active}
    assert not Invitation.objects.filter(pk=expired.pk).exists()
    assert invitations_cleanup_expired(now=NOW) == 0
