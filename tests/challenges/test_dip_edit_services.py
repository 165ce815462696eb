"""Afterwards: details and photo of an own dip, and undoing the latest dip within the window."""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.challenges.conditions import ConditionsError, DipConditions
from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge, photo_storage
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_details_update, dip_undo
from apps.challenges.services.dips import MESSAGE_UNDO_TOO_LATE, UNDO_WINDOW, dip_register
from apps.challenges.services.errors import ChallengeError, DipNotFoundError
from tests.challenges.photo_samples import image_bytes
from tests.factories import DipFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db
PHOTO = ProcessedPhoto(full=image_bytes(), thumbnail=image_bytes(size=(16, 12)))


@pytest.fixture
def starter():
    return Challenge.objects.get(target_dips=5)


def test_details_are_set_and_cleared_afterwards(member):
    dip = DipFactory(user_challenge=UserChallengeFactory(user=member), spot="Pier", note="oud")
    dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(water_temperature=Decimal("6.0")))
    dip.refresh_from_db()
    assert (dip.water_temperature, dip.spot, dip.note) == (Decimal("6.0"), "", "")


def test_someone_elses_dip_cannot_be_edited(member, other_member):
    dip = DipFactory(user_challenge=UserChallengeFactory(user=other_member), spot="Pier")
    with pytest.raises(DipNotFoundError):
        dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(spot="Weg"))
    dip.refresh_from_db()
    assert dip.spot == "Pier"


def test_wrong_details_change_nothing(member):
    dip = DipFactory(user_challenge=UserChallengeFactory(user=member), spot="Pier")
    with pytest.raises(ConditionsError):
        dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(spot="x" * 81))
    dip.refresh_from_db()
    assert dip.spot == "Pier"


def test_a_photo_added_afterwards_replaces_the_old_files_after_commit(
    member, starter, django_capture_on_commit_callbacks
):
    challenge_start(user=member, challenge_id=starter.pk)
    dip = dip_register(user=member, photo=PHOTO).dip
    old = (dip.photo.name, dip.thumbnail.name)
    with django_capture_on_commit_callbacks(execute=True):
        updated = dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(), photo=PHOTO)
    storage = photo_storage()
    assert (
        updated.photo.name not in old and storage.exists(updated.photo.name) and storage.exists(updated.thumbnail.name)
    )
    assert not any(storage.exists(name) for name in old)


def test_a_refused_photo_change_leaves_no_new_files(member, other_member):
    dip = DipFactory(user_challenge=UserChallengeFactory(user=other_member))
    storage = photo_storage()
    before = set(storage.listdir(str(member.pk))[1]) if storage.exists(str(member.pk)) else set()
    with pytest.raises(DipNotFoundError):
        dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(), photo=PHOTO)
    after = set(storage.listdir(str(member.pk))[1]) if storage.exists(str(member.pk)) else set()
    assert after == before


def test_undo_removes_the_latest_dip_within_the_window(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    dip_register(user=member)
    latest = dip_register(user=member).dip
    outcome = dip_undo(
        user=member, dip_id=latest.pk, now=latest.created_at + UNDO_WINDOW - datetime.timedelta(seconds=1)
    )
    assert outcome.dip_count == 1
    assert list(Dip.objects.filter(user=member).values_list("number", flat=True)) == [1]


def test_undo_a_second_after_the_window_is_refused(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    latest = dip_register(user=member).dip
    with pytest.raises(ChallengeError, match=MESSAGE_UNDO_TOO_LATE):
        dip_undo(user=member, dip_id=latest.pk, now=latest.created_at + UNDO_WINDOW + datetime.timedelta(seconds=1))
    assert Dip.objects.filter(pk=latest.pk).exists()


def test_only_the_latest_dip_can_be_undone(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    first = dip_register(user=member).dip
    dip_register(user=member)
    with pytest.raises(ChallengeError, match=MESSAGE_UNDO_TOO_LATE):
        dip_undo(user=member, dip_id=first.pk)
    assert Dip.objects.filter(user=member).count() == 2


def test_someone_elses_dip_cannot_be_undone(member, other_member, starter):
    challenge_start(user=other_member, challenge_id=starter.pk)
    theirs = dip_register(user=other_member).dip
    with pytest.raises(DipNotFoundError):
        dip_undo(user=member, dip_id=theirs.pk)
    assert Dip.objects.filter(pk=theirs.pk).exists()


def test_undo_takes_back_the_badge_and_the_completion_it_caused(member, starter):
    card = challenge_start(user=member, challenge_id=starter.pk)
    for _ in range(4):
        dip_register(user=member)
    last = dip_register(user=member)
    assert last.completed and last.badge is not None
    outcome = dip_undo(user=member, dip_id=last.dip.pk)
    card.refresh_from_db()
    assert card.completed_at is None and outcome.dip_count == 4
    assert outcome.revoked_badge_ids == (last.badge.pk,)
    assert not UserBadge.objects.filter(user_challenge=card, badge=last.badge).exists()
    # And the card takes dips again: the fifth counts, and earns the badge once more.
    again = dip_register(user=member)
    assert again.completed and again.dip_count == 5 and again.badge == last.badge


def test_undo_of_a_finished_card_after_a_new_start_is_refused(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    for _ in range(5):
        last = dip_register(user=member).dip
    challenge_start(user=member, challenge_id=Challenge.objects.get(category="waterdieren").pk)
    with pytest.raises(ChallengeError, match=MESSAGE_UNDO_TOO_LATE):
        dip_undo(user=member, dip_id=last.pk)
    assert UserChallenge.objects.get(user=member, is_active=False).completed_at is not None


def test_undo_removes_the_photo_files_after_commit(member, starter, django_capture_on_commit_callbacks):
    challenge_start(user=member, challenge_id=starter.pk)
    dip = dip_register(user=member, photo=PHOTO).dip
    names = (dip.photo.name, dip.thumbnail.name)
    with django_capture_on_commit_callbacks(execute=True):
        dip_undo(user=member, dip_id=dip.pk, now=timezone.now())
    assert not any(photo_storage().exists(name) for name in names)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_undo_takes_the_card_lock(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    dip = dip_register(user=member).dip
    with CaptureQueriesContext(connection) as queries:
        dip_undo(user=member, dip_id=dip.pk)
    assert any("FOR UPDATE" in q["sql"] and "challenges_userchallenge" in q["sql"] for q in queries.captured_queries)
