"""Dips tapped without signal and sent later: the tap's time (at most 72 hours back) and its card."""

import datetime
import uuid

import pytest
from django.utils import timezone

from apps.challenges.models import Challenge, Dip, UserChallenge
from apps.challenges.services.cards import challenge_start, challenge_stop
from apps.challenges.services.dip_rules import (
    MESSAGE_COMPLETED,
    MESSAGE_DAILY_LIMIT,
    MESSAGE_TAP_BEFORE_START,
    TAP_CLOCK_SKEW,
    TAP_TIME_MAX_AGE,
    dip_moment,
)
from apps.challenges.services.dips import MESSAGE_OTHER_CARD, dip_register
from apps.challenges.services.errors import ChallengeError

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 11, 23, 10, 0, tzinfo=datetime.UTC)


def _card_started(member, *, at: datetime.datetime, target_dips: int = 5) -> UserChallenge:
    card = challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=target_dips).pk)
    UserChallenge.objects.filter(pk=card.pk).update(started_at=at)
    card.refresh_from_db()
    return card


@pytest.fixture
def card(member):
    # Started well before NOW and before the real clock's "now" minus 72 hours: every tap below is after it.
    return _card_started(member, at=min(NOW, timezone.now()) - datetime.timedelta(days=7))


@pytest.mark.parametrize(
    ("tapped_at", "counts_at"),
    [
        (None, NOW),
        (NOW - datetime.timedelta(hours=5), NOW - datetime.timedelta(hours=5)),
        (NOW - TAP_TIME_MAX_AGE, NOW - TAP_TIME_MAX_AGE),
        (NOW - TAP_TIME_MAX_AGE - datetime.timedelta(seconds=1), NOW),
        (NOW + datetime.timedelta(minutes=1), NOW),
    ],
)
def test_a_dip_counts_at_its_tap_when_past_and_at_most_72_hours_old(tapped_at, counts_at):
    assert dip_moment(tapped_at=tapped_at, now=NOW) == counts_at


def test_a_late_tap_counts_on_the_day_it_was_tapped(member, card):
    # Tapped on Saturday evening in Amsterdam, sent on Monday morning.
    tapped = datetime.datetime(2026, 11, 21, 22, 30, tzinfo=datetime.UTC)
    outcome = dip_register(user=member, tapped_at=tapped, now=NOW)
    dip = Dip.objects.get(pk=outcome.dip.pk)
    assert dip.dip_date == datetime.date(2026, 11, 21)
    assert dip.created_at == tapped


def test_a_tap_too_old_or_in_the_future_gets_the_servers_clock(member, card):
    old = dip_register(user=member, tapped_at=NOW - TAP_TIME_MAX_AGE - datetime.timedelta(hours=1), now=NOW)
    future = dip_register(user=member, tapped_at=NOW + datetime.timedelta(days=1), now=NOW)
    for outcome in [old, future]:
        dip = Dip.objects.get(pk=outcome.dip.pk)
        assert dip.created_at == NOW and dip.dip_date == timezone.localdate(NOW)


def test_a_tap_for_a_card_that_was_stopped_is_refused_in_dutch(member, card):
    challenge_stop(user=member, user_challenge_id=card.pk)
    with pytest.raises(ChallengeError, match=MESSAGE_OTHER_CARD):
        dip_register(user=member, user_challenge_id=card.pk)
    newer = challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    with pytest.raises(ChallengeError, match=MESSAGE_OTHER_CARD):
        dip_register(user=member, user_challenge_id=card.pk)
    assert newer.dips.count() == 0


def test_a_tap_for_a_completed_card_gets_the_usual_message(member, card):
    for _ in range(5):
        dip_register(user=member, user_challenge_id=card.pk)
    with pytest.raises(ChallengeError, match=MESSAGE_COMPLETED):
        dip_register(user=member, user_challenge_id=card.pk, request_id=uuid.uuid4())
    assert card.dips.count() == 5


# --- the card's start and the daily limit ---------------------------------------------------------------


def test_a_tap_from_before_the_card_started_is_refused_in_dutch(member):
    card = _card_started(member, at=NOW - datetime.timedelta(hours=2))
    with pytest.raises(ChallengeError, match=MESSAGE_TAP_BEFORE_START):
        dip_register(user=member, tapped_at=NOW - datetime.timedelta(hours=5), user_challenge_id=card.pk, now=NOW)
    assert card.dips.count() == 0


def test_a_tap_just_before_the_start_counts_at_the_start_as_a_phone_clock_may_run_behind(member):
    started = NOW - datetime.timedelta(hours=2)
    card = _card_started(member, at=started)
    outcome = dip_register(user=member, tapped_at=started - TAP_CLOCK_SKEW / 2, user_challenge_id=card.pk, now=NOW)
    assert Dip.objects.get(pk=outcome.dip.pk).created_at == started


def test_with_the_daily_limit_claimed_earlier_days_on_a_new_card_give_one_dip(member, settings):
    # The attack: a card started a minute ago, then taps "from" today and the three days before, at once.
    settings.DIP_DAILY_LIMIT_ENABLED = True
    card = _card_started(member, at=NOW - datetime.timedelta(minutes=1))
    counted, refused = 0, []
    for hours in (0, 24, 48, 71):
        try:
            dip_register(user=member, tapped_at=NOW - datetime.timedelta(hours=hours), request_id=uuid.uuid4(), now=NOW)
            counted += 1
        except ChallengeError as error:
            refused.append(str(error))
    assert counted == 1 and card.dips.count() == 1
    assert refused == [MESSAGE_TAP_BEFORE_START] * 3


def test_with_the_daily_limit_each_calendar_day_of_the_dips_counts_once(member, settings):
    # Saturday and Sunday on a beach without signal, sent on Monday morning, then a tap on Monday itself.
    settings.DIP_DAILY_LIMIT_ENABLED = True
    card = _card_started(member, at=NOW - datetime.timedelta(days=10))
    saturday = datetime.datetime(2026, 11, 21, 9, 0, tzinfo=datetime.UTC)
    sunday = datetime.datetime(2026, 11, 22, 22, 30, tzinfo=datetime.UTC)  # 23:30 in Amsterdam: still Sunday
    dip_register(user=member, tapped_at=saturday, now=NOW)
    dip_register(user=member, tapped_at=sunday, now=NOW)
    with pytest.raises(ChallengeError, match="Op 21 november 2026 heb je al een plons geregistreerd"):
        dip_register(user=member, tapped_at=saturday + datetime.timedelta(hours=3), now=NOW)
    dip_register(user=member, now=NOW)
    with pytest.raises(ChallengeError, match=MESSAGE_DAILY_LIMIT):
        dip_register(user=member, tapped_at=NOW - datetime.timedelta(minutes=5), now=NOW)
    assert sorted(card.dips.values_list("dip_date", flat=True)) == [
        datetime.date(2026, 11, 21),
        datetime.date(2026, 11, 22),
        datetime.date(2026, 11, 23),
    ]


# --- the endpoint ---------------------------------------------------------------------------------


def test_the_endpoint_takes_the_tap_time_and_card_of_a_queued_tap(member_client, card):
    tapped = timezone.now() - datetime.timedelta(hours=30)
    request_id = str(uuid.uuid4())
    fields = {"request_id": request_id, "tapped_at": tapped.isoformat(), "user_challenge_id": str(card.pk)}
    first = member_client.post("/challenge/plons", fields)
    again = member_client.post("/challenge/plons", fields)
    assert first.status_code == 201 and again.status_code == 200
    dip = card.dips.get()
    assert dip.created_at == tapped.replace(microsecond=tapped.microsecond)
    assert first.json()["dip"]["dipDate"] == timezone.localdate(tapped).isoformat()


def test_the_endpoint_reads_a_utc_z_time(member_client, card):
    tapped = (timezone.now() - datetime.timedelta(hours=1)).replace(microsecond=0)
    response = member_client.post("/challenge/plons", {"tapped_at": tapped.strftime("%Y-%m-%dT%H:%M:%S.000Z")})
    assert response.status_code == 201
    assert card.dips.get().created_at == tapped


@pytest.mark.parametrize(
    "fields",
    [
        {"tapped_at": "gisteren"},
        {"tapped_at": "2026-11-21T10:00:00"},  # no offset: which clock?
        {"user_challenge_id": "abc"},
        {"user_challenge_id": "-3"},
    ],
)
def test_the_endpoint_refuses_a_bad_tap_time_or_card_in_dutch(member_client, card, fields):
    response = member_client.post("/challenge/plons", fields)
    assert response.status_code == 400 and "Laad de pagina opnieuw" in response.json()["error"]
    assert card.dips.count() == 0


def test_the_endpoint_refuses_a_queued_tap_for_another_card_with_409(member_client, card):
    response = member_client.post("/challenge/plons", {"user_challenge_id": str(card.pk + 1000)})
    assert response.status_code == 409 and response.json()["error"] == MESSAGE_OTHER_CARD
    assert card.dips.count() == 0


def test_the_endpoint_refuses_a_queued_tap_from_before_the_card_with_409_in_dutch(member_client, member):
    card = _card_started(member, at=timezone.now() - datetime.timedelta(hours=1))
    tapped = timezone.now() - datetime.timedelta(hours=30)
    response = member_client.post(
        "/challenge/plons", {"tapped_at": tapped.isoformat(), "user_challenge_id": str(card.pk)}
    )
    assert response.status_code == 409 and response.json()["error"] == MESSAGE_TAP_BEFORE_START
    assert card.dips.count() == 0
