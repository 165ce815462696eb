"""Dated club challenges (issue 25): made by an admin, joined by members, counted from the dips, with or
without a stamp card; completion recorded and taken back when a dip leaves."""

import datetime
import uuid

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.challenges.card_payloads import dip_registered_payload
from apps.challenges.models import Challenge, ClubChallenge, ClubChallengeEntry, Dip
from apps.challenges.selectors import club_challenges_for
from apps.challenges.services import club_challenges as club
from apps.challenges.services.cards import challenge_start, challenge_stop
from apps.challenges.services.club_challenges import ClubChallengeSpec
from apps.challenges.services.dip_changes import dip_delete, dip_undo
from apps.challenges.services.dip_rules import MESSAGE_COMPLETED, MESSAGE_DAILY_LIMIT, MESSAGE_NO_ACTIVE, dip_precheck
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    DipFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def today():
    return timezone.localdate()


def spec(**overrides) -> ClubChallengeSpec:
    values = {
        "name": "Dip a Day December",
        "description": "Elke dag in december een plons.",
        "starts_on": datetime.date(2026, 12, 1),
        "ends_on": datetime.date(2026, 12, 31),
        "kind": ClubChallenge.Kind.EVERY_DAY,
        "target": None,
    }
    return ClubChallengeSpec(**{**values, **overrides})


def joined(user, **challenge):
    entry = ClubChallengeEntryFactory(user=user, club_challenge=ClubChallengeFactory(**challenge))
    return entry.club_challenge


def card_for(user, target=100):
    return UserChallengeFactory(user=user, challenge=Challenge.objects.get(category=Challenge.Category.WATERDIEREN))


def progress(user, challenge):
    return next(card for card in club_challenges_for(user) if card.challenge.pk == challenge.pk)


# --- made by an admin --------------------------------------------------------------------------------------


def test_an_admin_makes_each_kind():
    every_day = club.club_challenge_create(spec=spec())
    assert every_day.target is None and every_day.goal == 31 and every_day.kind_display == "Elke dag"
    days = club.club_challenge_create(spec=spec(name="Twintig", kind=ClubChallenge.Kind.DAYS, target=20))
    assert days.goal == 20 and days.kind_display == "20 dagen"
    goal = club.club_challenge_create(spec=spec(name="Samen", kind=ClubChallenge.Kind.CLUB_GOAL, target=500))
    assert goal.goal == 500 and goal.kind_display == "Clubdoel: 500 plonsen samen"


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": "  "}, "name", club.MESSAGE_NAME_MISSING),
        ({"ends_on": datetime.date(2026, 11, 30)}, "ends_on", club.MESSAGE_PERIOD_ORDER),
        ({"ends_on": datetime.date(2028, 1, 1)}, "ends_on", "Een clubchallenge duurt hoogstens 366 dagen."),
        ({"kind": "wekelijks"}, "kind", club.MESSAGE_KIND_UNKNOWN),
        ({"kind": ClubChallenge.Kind.DAYS, "target": 32}, "target", "hoogstens 31 (de lengte van de periode)"),
        ({"kind": ClubChallenge.Kind.DAYS, "target": None}, "target", "Vul het aantal dagen in"),
        ({"kind": ClubChallenge.Kind.CLUB_GOAL, "target": 0}, "target", "Vul het clubdoel in"),
    ],
)
def test_wrong_input_is_refused_per_field_in_dutch(overrides, field, message):
    with pytest.raises(club.ClubChallengeInvalid) as refused:
        club.club_challenge_create(spec=spec(**overrides))
    assert message in refused.value.fields[field]
    assert not ClubChallenge.objects.exists()


def test_a_name_is_taken_once_whatever_its_case():
    club.club_challenge_create(spec=spec())
    with pytest.raises(club.ClubChallengeInvalid) as refused:
        club.club_challenge_create(spec=spec(name="dip a day december"))
    assert refused.value.fields == {"name": club.MESSAGE_NAME_TAKEN}


def test_badge_art_is_stored_and_removed_again_when_the_save_is_refused(settings, tmp_path):
    from apps.challenges.badge_art import badge_art_storage

    png = image_bytes("PNG", size=(64, 64))
    made = club.club_challenge_create(spec=spec(image_png=png))
    assert made.badge_image_url and made.badge_image_src
    name = made.badge_image_url.rsplit("/", 1)[-1]
    assert badge_art_storage().exists(name)
    before = set(badge_art_storage().listdir("")[1])
    with pytest.raises(club.ClubChallengeInvalid):
        club.club_challenge_create(spec=spec(image_png=png))  # the name is taken
    assert set(badge_art_storage().listdir("")[1]) == before


def test_the_database_guards_the_kind_and_the_period():
    with pytest.raises(IntegrityError), transaction.atomic():
        ClubChallengeFactory(kind=ClubChallenge.Kind.EVERY_DAY, target=5)
    with pytest.raises(IntegrityError), transaction.atomic():
        ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        ClubChallengeFactory(starts_on=today(), ends_on=today() - DAY)


def test_a_challenge_without_members_can_be_deleted_one_with_members_not():
    empty, taken = ClubChallengeFactory(), ClubChallengeFactory()
    ClubChallengeEntryFactory(club_challenge=taken)
    club.club_challenge_delete(club_challenge_id=empty.pk)
    with pytest.raises(ChallengeError, match="doen al leden mee"):
        club.club_challenge_delete(club_challenge_id=taken.pk)
    assert list(ClubChallenge.objects.all()) == [taken]


# --- joining and leaving ------------------------------------------------------------------------------------


def test_join_is_idempotent_and_leave_too():
    user, challenge = UserFactory(), ClubChallengeFactory()
    first = club.club_challenge_join(user=user, club_challenge_id=challenge.pk)
    again = club.club_challenge_join(user=user, club_challenge_id=challenge.pk)
    assert first.created and not again.created and first.entry.pk == again.entry.pk
    assert ClubChallengeEntry.objects.filter(user=user).count() == 1
    assert club.club_challenge_leave(user=user, club_challenge_id=challenge.pk) is True
    assert club.club_challenge_leave(user=user, club_challenge_id=challenge.pk) is False
    assert not ClubChallengeEntry.objects.exists()


def test_an_upcoming_challenge_can_be_joined_an_ended_one_not():
    user = UserFactory()
    upcoming = ClubChallengeFactory(starts_on=today() + 5 * DAY)
    ended = ClubChallengeFactory(starts_on=today() - 10 * DAY, ends_on=today() - DAY)
    assert club.club_challenge_join(user=user, club_challenge_id=upcoming.pk).created
    with pytest.raises(ChallengeError, match="al afgelopen"):
        club.club_challenge_join(user=user, club_challenge_id=ended.pk)
    with pytest.raises(ChallengeError, match="bestaat niet"):
        club.club_challenge_join(user=user, club_challenge_id=999999)


def test_a_completed_challenge_cannot_be_left():
    user = UserFactory()
    challenge = joined(user, kind=ClubChallenge.Kind.DAYS, target=1)
    dip_register(user=user)
    with pytest.raises(ChallengeError, match="voltooid"):
        club.club_challenge_leave(user=user, club_challenge_id=challenge.pk)


def test_dips_of_the_period_before_joining_count_and_can_complete_at_once():
    user = UserFactory()
    challenge = ClubChallengeFactory(kind=ClubChallenge.Kind.DAYS, target=2, starts_on=today() - 3 * DAY)
    card = card_for(user)
    DipFactory(user=user, user_challenge=card, number=1, dip_date=today() - 2 * DAY)
    DipFactory(user=user, user_challenge=card, number=2, dip_date=today() - DAY)
    DipFactory(user=user, user_challenge=card, number=3, dip_date=today() - 10 * DAY)  # before the period
    outcome = club.club_challenge_join(user=user, club_challenge_id=challenge.pk)
    assert outcome.completed == (challenge,) and outcome.entry.completed_at is not None
    assert progress(user, challenge).days_done == 2


# --- one tap counts everywhere --------------------------------------------------------------------------------


def test_a_member_without_a_card_registers_a_dip_that_counts():
    user = UserFactory()
    challenge = joined(user, kind=ClubChallenge.Kind.DAYS, target=5)
    assert dip_precheck(user=user).has_card
    outcome = dip_register(user=user)
    assert outcome.user_challenge is None and outcome.dip.user_challenge_id is None and outcome.dip.number == 1
    card = progress(user, challenge)
    assert card.joined and card.days_done == 1 and card.days_left == 10
    user.refresh_from_db()
    assert user.dip_count == 1


def test_without_a_card_and_without_a_running_challenge_the_dip_is_refused_as_before():
    user = UserFactory()
    assert dip_precheck(user=user).has_card is False
    with pytest.raises(ChallengeError, match=MESSAGE_NO_ACTIVE):
        dip_register(user=user)
    joined(user, starts_on=today() + DAY)  # not running yet
    joined(UserFactory())  # someone else's
    with pytest.raises(ChallengeError, match=MESSAGE_NO_ACTIVE):
        dip_register(user=user)
    assert not Dip.objects.exists()


def test_one_tap_with_a_card_counts_for_the_card_and_every_joined_challenge_as_one_dip():
    user = UserFactory()
    card = card_for(user)
    days = joined(user, kind=ClubChallenge.Kind.DAYS, target=5)
    every = joined(user, kind=ClubChallenge.Kind.EVERY_DAY)
    goal = joined(user, kind=ClubChallenge.Kind.CLUB_GOAL, target=50)
    not_joined = ClubChallengeFactory()
    outcome = dip_register(user=user)
    assert outcome.user_challenge == card and Dip.objects.count() == 1
    assert progress(user, days).days_done == 1 and progress(user, every).days_done == 1
    assert progress(user, goal).total == 1 and progress(user, goal).participants == 1
    assert progress(user, not_joined).days_done == 0 and not progress(user, not_joined).joined


def test_a_day_counts_once_for_the_day_kinds_a_club_goal_counts_dips():
    user = UserFactory()
    days = joined(user, kind=ClubChallenge.Kind.DAYS, target=3)
    goal = joined(user, kind=ClubChallenge.Kind.CLUB_GOAL, target=50)
    for _ in range(3):
        dip_register(user=user)
    assert progress(user, days).days_done == 1 and progress(user, goal).total == 3
    assert ClubChallengeEntry.objects.get(club_challenge=days).completed_at is None


def test_the_daily_limit_holds_without_a_card(settings):
    settings.DIP_DAILY_LIMIT_ENABLED = True
    user = UserFactory()
    joined(user)
    dip_register(user=user)
    assert dip_precheck(user=user).refusal.message == MESSAGE_DAILY_LIMIT
    with pytest.raises(ChallengeError, match=MESSAGE_DAILY_LIMIT):
        dip_register(user=user)


def test_a_completed_card_still_lets_a_dip_count_for_a_running_challenge():
    user = UserFactory()
    card = card_for(user)
    card.completed_at = timezone.now()
    card.save()
    with pytest.raises(ChallengeError, match=MESSAGE_COMPLETED):
        dip_register(user=user)
    challenge = joined(user)
    assert dip_precheck(user=user).refusal is None
    outcome = dip_register(user=user)
    assert outcome.user_challenge is None and progress(user, challenge).days_done == 1
    assert card.dips.count() == 0


def test_a_resend_of_a_dip_without_a_card_is_the_same_dip():
    user = UserFactory()
    joined(user)
    request_id = uuid.uuid4()
    first = dip_register(user=user, request_id=request_id)
    again = dip_register(user=user, request_id=request_id)
    assert again.replayed and again.dip.pk == first.dip.pk and Dip.objects.count() == 1


def test_a_tap_sent_later_counts_on_its_own_day_inside_the_period():
    user = UserFactory()
    challenge = joined(user, starts_on=today() - 5 * DAY)
    now = timezone.now()
    outcome = dip_register(user=user, tapped_at=now - DAY, now=now)
    assert outcome.dip.dip_date == timezone.localdate(now - DAY)
    assert progress(user, challenge).days_done == 1


def test_a_joined_member_with_a_card_keeps_the_card_rules_for_a_tap_of_another_card():
    user = UserFactory()
    joined(user)
    with pytest.raises(ChallengeError, match="niet meer actief"):
        dip_register(user=user, user_challenge_id=12345)


# --- completion and its undoing --------------------------------------------------------------------------------


def test_completion_is_recorded_and_celebrated_and_undo_takes_it_back():
    user = UserFactory()
    challenge = joined(user, kind=ClubChallenge.Kind.DAYS, target=2, starts_on=today() - 3 * DAY)
    DipFactory(user=user, user_challenge=None, number=1, dip_date=today() - DAY)
    outcome = dip_register(user=user)
    assert outcome.club_completed == (challenge,)
    entry = ClubChallengeEntry.objects.get(user=user)
    assert entry.completed_at is not None
    payload = dip_registered_payload(outcome)
    assert payload["celebration"] == "completion" and payload["completedAt"] is None
    assert any(challenge.name in toast["text"] for toast in payload["toasts"])

    undone = dip_undo(user=user, dip_id=outcome.dip.pk)
    assert undone.user_challenge is None and undone.dip_count == 1
    entry.refresh_from_db()
    assert entry.completed_at is None and progress(user, challenge).days_done == 1


def test_an_admin_deleting_a_dip_recounts_with_or_without_a_card():
    user = UserFactory()
    challenge = joined(user, kind=ClubChallenge.Kind.DAYS, target=1)
    free = dip_register(user=user)
    assert ClubChallengeEntry.objects.get(user=user).completed_at is not None
    assert dip_delete(dip_id=free.dip.pk) is None
    assert ClubChallengeEntry.objects.get(user=user).completed_at is None

    card = card_for(user)
    on_card = dip_register(user=user)
    assert on_card.user_challenge == card and on_card.club_completed == (challenge,)
    assert dip_delete(dip_id=on_card.dip.pk) == card
    assert ClubChallengeEntry.objects.get(user=user).completed_at is None


def test_stopping_a_card_takes_its_dips_out_of_the_club_challenges():
    user = UserFactory()
    challenge = joined(user, kind=ClubChallenge.Kind.DAYS, target=1)
    card = challenge_start(user=user, challenge_id=Challenge.objects.get(name="Waterdieren Stempelkaart").pk)
    dip_register(user=user)
    assert ClubChallengeEntry.objects.get(user=user).completed_at is not None
    challenge_stop(user=user, user_challenge_id=card.pk)
    assert ClubChallengeEntry.objects.get(user=user).completed_at is None
    assert progress(user, challenge).days_done == 0


def test_the_undo_of_a_dip_without_a_card_takes_only_the_latest_within_the_window():
    user = UserFactory()
    joined(user)
    first = dip_register(user=user)
    second = dip_register(user=user)
    with pytest.raises(ChallengeError, match="niet meer ongedaan"):
        dip_undo(user=user, dip_id=first.dip.pk)
    with pytest.raises(ChallengeError, match="niet meer ongedaan"):
        dip_undo(user=user, dip_id=second.dip.pk, now=timezone.now() + datetime.timedelta(minutes=11))
    dip_undo(user=user, dip_id=second.dip.pk)
    assert list(Dip.objects.values_list("pk", flat=True)) == [first.dip.pk]


def test_a_club_goal_is_reached_together_and_completes_everyone():
    members = UserFactory.create_batch(3)
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=3)
    outsider = UserFactory()
    for user in members:
        club.club_challenge_join(user=user, club_challenge_id=goal.pk)
    DipFactory(user=outsider, user_challenge=None, number=1)  # not taking part: does not count
    dip_register(user=members[0])
    dip_register(user=members[1])
    assert progress(members[2], goal).total == 2 and progress(members[2], goal).participants == 3
    assert not ClubChallengeEntry.objects.filter(completed_at__isnull=False).exists()
    last = dip_register(user=members[2])
    assert last.club_completed == (goal,)
    assert ClubChallengeEntry.objects.filter(club_challenge=goal, completed_at__isnull=False).count() == 3
    assert progress(members[0], goal).percent == 100

    dip_undo(user=members[2], dip_id=last.dip.pk)
    assert not ClubChallengeEntry.objects.filter(completed_at__isnull=False).exists()


def test_a_dip_outside_the_period_does_not_count():
    user = UserFactory()
    challenge = joined(user, starts_on=today() - 5 * DAY, ends_on=today() - DAY)
    later = ClubChallengeFactory(starts_on=today())
    ClubChallengeEntryFactory(user=user, club_challenge=later)
    dip_register(user=user)
    assert ClubChallengeEntry.objects.get(club_challenge=challenge).completed_at is None
    assert progress(user, later).days_done == 1
