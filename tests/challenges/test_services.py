import datetime

import pytest
from django.core.files.storage import storages
from django.utils import timezone

from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start, challenge_stop
from apps.challenges.services.dip_changes import dip_delete
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeCompletedError, ChallengeError
from tests.factories import BadgeFactory, ChallengeFactory, DipFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


@pytest.fixture
def starter():
    return Challenge.objects.get(target_dips=5)


def card_at(user, challenge, count):
    card = UserChallengeFactory(user=user, challenge=challenge)
    for number in range(1, count + 1):
        DipFactory(user_challenge=card, number=number)
    return card


def test_start_creates_an_active_card_with_the_challenge_type(member, waterdieren):
    card = challenge_start(user=member, challenge_id=waterdieren.pk)
    assert card.is_active and card.challenge_type == "waterdieren" and card.completed_at is None


def test_a_second_waterdieren_card_is_refused(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    with pytest.raises(ChallengeError, match="Je hebt al een actieve Waterdieren Stempelkaart!"):
        challenge_start(user=member, challenge_id=waterdieren.pk)
    assert UserChallenge.objects.filter(user=member).count() == 1


def test_another_challenge_while_one_runs_is_refused(member, starter):
    special = ChallengeFactory()
    challenge_start(user=member, challenge_id=starter.pk)
    with pytest.raises(ChallengeError, match="Je hebt al een actieve challenge"):
        challenge_start(user=member, challenge_id=special.pk)


def test_inactive_or_unknown_challenges_cannot_be_started(member):
    hidden = ChallengeFactory(is_active=False)
    for challenge_id in (hidden.pk, 999_999):
        with pytest.raises(ChallengeError, match="niet beschikbaar"):
            challenge_start(user=member, challenge_id=challenge_id)


def test_a_finished_challenge_is_archived_with_its_badges_when_a_new_one_starts(member, starter, waterdieren):
    card = card_at(member, starter, 5)
    card.completed_at = timezone.now()
    card.save()
    UserBadge.objects.create(user=member, badge=starter.badges.get(), user_challenge=card)
    new = challenge_start(user=member, challenge_id=waterdieren.pk)
    card.refresh_from_db()
    assert not card.is_active and new.is_active
    assert UserBadge.objects.filter(user_challenge=card).count() == 1
    assert Dip.objects.filter(user_challenge=card).count() == 5


def test_register_dip_numbers_dips_and_uses_the_amsterdam_date(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    late_evening_utc = datetime.datetime(2026, 11, 21, 23, 30, tzinfo=datetime.UTC)  # 00:30 in Amsterdam
    outcome = dip_register(user=member, now=late_evening_utc)
    assert outcome.dip.number == 1 and outcome.dip_count == 1
    assert outcome.dip.dip_date == datetime.date(2026, 11, 22)
    assert outcome.badge is None and not outcome.completed


def test_milestones_award_their_badge_once(member, waterdieren):
    card = card_at(member, waterdieren, 4)
    outcome = dip_register(user=member)
    assert outcome.badge.name == "Waterslak" and outcome.award.user_challenge == card
    assert dip_register(user=member).badge is None
    assert list(UserBadge.objects.filter(user=member).values_list("badge__name", flat=True)) == ["Waterslak"]


def test_reaching_the_target_completes_and_then_refuses(member, waterdieren):
    card = card_at(member, waterdieren, 99)
    outcome = dip_register(user=member)
    assert outcome.completed and outcome.badge.name == "IJsvogel"
    card.refresh_from_db()
    assert card.completed_at is not None
    with pytest.raises(ChallengeError, match="Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."):
        dip_register(user=member)
    assert card.dips.count() == 100


def test_a_count_at_the_target_is_refused_even_without_completion(member, starter):
    card_at(member, starter, 5)  # data that reached the target without completed_at being set
    with pytest.raises(ChallengeError, match="Maximum van 5 plonsen bereikt!"):
        dip_register(user=member)


def test_no_active_card_is_refused(member):
    with pytest.raises(ChallengeError, match="geen actieve challenge"):
        dip_register(user=member)


def test_daily_limit_is_off_by_default_and_enforced_when_on(member, waterdieren, settings):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    dip_register(user=member)
    dip_register(user=member)
    settings.DIP_DAILY_LIMIT_ENABLED = True
    with pytest.raises(ChallengeError, match="vandaag al een plons"):
        dip_register(user=member)
    tomorrow = timezone.now() + datetime.timedelta(days=1)
    assert dip_register(user=member, now=tomorrow).dip_count == 3


def test_photo_files_are_stored_under_the_user_and_removed_when_refused(member, starter):
    storage = storages["photos"]
    card = card_at(member, starter, 4)
    photo = ProcessedPhoto(full=b"full-bytes", thumbnail=b"thumb-bytes")
    outcome = dip_register(user=member, photo=photo)
    assert outcome.dip.photo.name.startswith(f"{member.pk}/") and outcome.dip.photo.name.endswith(".jpg")
    assert storage.open(outcome.dip.photo.name).read() == b"full-bytes"
    before = set(storage.listdir(str(member.pk))[1])
    with pytest.raises(ChallengeError):
        dip_register(user=member, photo=photo)  # completed now: refused
    assert set(storage.listdir(str(member.pk))[1]) == before
    assert card.dips.count() == 5


def test_stop_deletes_the_card_its_dips_badges_and_photo_files(member, starter, django_capture_on_commit_callbacks):
    storage = storages["photos"]
    challenge_start(user=member, challenge_id=starter.pk)
    outcomes = [dip_register(user=member, photo=ProcessedPhoto(full=b"x", thumbnail=b"y")) for _ in range(4)]
    names = [name for o in outcomes for name in (o.dip.photo.name, o.dip.thumbnail.name)]
    assert all(storage.exists(name) for name in names)
    with django_capture_on_commit_callbacks(execute=True):
        challenge_stop(user=member, user_challenge_id=outcomes[0].user_challenge.pk)
    assert not UserChallenge.objects.filter(user=member).exists()
    assert not Dip.objects.filter(user=member).exists() and not UserBadge.objects.filter(user=member).exists()
    assert not any(storage.exists(name) for name in names)


def test_stop_keeps_a_completed_card_its_badges_and_photos(member, starter):
    """Issue 17.7: a finished card is the member's trophy; starting a new challenge archives it instead."""
    challenge_start(user=member, challenge_id=starter.pk)
    outcomes = [dip_register(user=member, photo=ProcessedPhoto(full=b"x", thumbnail=b"y")) for _ in range(5)]
    card = outcomes[-1].user_challenge
    assert outcomes[-1].completed
    with pytest.raises(ChallengeCompletedError, match="blijft bewaard"):
        challenge_stop(user=member, user_challenge_id=card.pk)
    assert UserChallenge.objects.filter(pk=card.pk).exists() and card.dips.count() == 5


def test_stop_refuses_someone_elses_card(member, starter):
    other_card = card_at(UserFactory(), starter, 1)
    with pytest.raises(ChallengeError):
        challenge_stop(user=member, user_challenge_id=other_card.pk)
    assert UserChallenge.objects.filter(pk=other_card.pk).exists()


def test_special_challenges_award_their_own_badges(member):
    special = ChallengeFactory(target_dips=3)
    BadgeFactory(challenge=special, milestone_dips=3, name="Zeehond")
    challenge_start(user=member, challenge_id=special.pk)
    dip_register(user=member), dip_register(user=member)
    outcome = dip_register(user=member)
    assert outcome.completed and outcome.badge.name == "Zeehond"


def test_a_retried_request_returns_the_earlier_dip_instead_of_a_new_one(member, waterdieren):
    import uuid

    card = card_at(member, waterdieren, 4)
    request_id = uuid.uuid4()
    first = dip_register(user=member, request_id=request_id)
    storage = storages["photos"]
    before = set(storage.listdir(str(member.pk))[1]) if storage.exists(str(member.pk)) else set()
    again = dip_register(user=member, request_id=request_id, photo=ProcessedPhoto(full=b"x", thumbnail=b"y"))
    assert again.replayed and again.dip.pk == first.dip.pk and again.dip_count == 5
    assert again.badge.name == "Waterslak"
    assert card.dips.count() == 5 and UserBadge.objects.filter(user_challenge=card).count() == 1
    after = set(storage.listdir(str(member.pk))[1]) if storage.exists(str(member.pk)) else set()
    assert after == before  # the retry's photo was not kept
    assert dip_register(user=member, request_id=uuid.uuid4()).dip_count == 6


def test_dates_are_shown_on_the_amsterdam_calendar():
    from apps.core.formatting import dutch_date

    just_after_midnight_in_amsterdam = datetime.datetime(2026, 11, 20, 23, 30, tzinfo=datetime.UTC)
    assert dutch_date(just_after_midnight_in_amsterdam) == "21 november 2026"
    assert dutch_date(datetime.date(2026, 3, 1)) == "1 maart 2026"
    assert dutch_date(None) == ""


# --- dip_delete: one dip removed, the card stays whole ---------------------------------------------------


def registered(user, times):
    return [dip_register(user=user) for _ in range(times)]


def test_deleting_a_dip_in_the_middle_renumbers_the_later_ones_and_the_next_dip_still_counts(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    outcomes = registered(member, 7)
    dip_delete(dip_id=outcomes[2].dip.pk)  # number 3
    card = outcomes[0].user_challenge
    assert list(card.dips.order_by("number").values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]
    # The dip that was number 4 is number 3 now: the order of the card is kept.
    assert Dip.objects.get(pk=outcomes[3].dip.pk).number == 3
    following = dip_register(user=member)
    assert following.dip.number == 7 and following.dip_count == 7


def test_a_badge_beyond_the_new_count_is_taken_back_and_earned_again_at_the_milestone(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    outcomes = registered(member, 5)
    assert outcomes[-1].badge.name == "Waterslak"
    dip_delete(dip_id=outcomes[0].dip.pk)
    assert not UserBadge.objects.filter(user=member).exists()
    again = dip_register(user=member)
    assert again.dip.number == 5 and again.badge.name == "Waterslak"
    assert UserBadge.objects.filter(user=member).count() == 1


def test_a_badge_below_the_new_count_stays(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    outcomes = registered(member, 6)
    dip_delete(dip_id=outcomes[5].dip.pk)
    assert list(UserBadge.objects.filter(user=member).values_list("badge__name", flat=True)) == ["Waterslak"]


def test_a_completed_card_below_its_target_is_open_again(member, starter):
    challenge_start(user=member, challenge_id=starter.pk)
    outcomes = registered(member, 5)
    assert outcomes[-1].completed
    card = dip_delete(dip_id=outcomes[1].dip.pk)
    card.refresh_from_db()
    assert card.completed_at is None and card.is_active
    last = dip_register(user=member)
    assert last.completed and last.dip.number == 5


def test_deleting_a_dip_removes_its_photo_files_after_the_commit(member, starter, django_capture_on_commit_callbacks):
    storage = storages["photos"]
    challenge_start(user=member, challenge_id=starter.pk)
    outcome = dip_register(user=member, photo=ProcessedPhoto(full=b"x", thumbnail=b"y"))
    names = [outcome.dip.photo.name, outcome.dip.thumbnail.name]
    with django_capture_on_commit_callbacks(execute=True):
        dip_delete(dip_id=outcome.dip.pk)
    assert not any(storage.exists(name) for name in names)


def test_deleting_a_dip_that_is_gone_is_refused_in_dutch(member):
    with pytest.raises(ChallengeError, match="Deze plons bestaat niet"):
        dip_delete(dip_id=999_999)
