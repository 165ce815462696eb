"""Issue 34 §6: a waitlist offer never runs out at night (22:00 to 08:00 in the club's time zone): a deadline that
would fall then moves to 08:00; the event's start still ends it sooner. The test settings turn the night off (as
they do quiet hours); these tests set the production hours."""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.test import override_settings

from apps.events.services import offer_deadline
from tests.factories import EventFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("night")]

ZONE = ZoneInfo(settings.TIME_ZONE)


@pytest.fixture
def night():
    with override_settings(WAITLIST_OFFER_NIGHT_START=22, WAITLIST_OFFER_NIGHT_END=8):
        yield


def local(*args) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=ZONE)


def far_event():
    return EventFactory(event_date=local(2026, 12, 20, 10, 0))


@override_settings(WAITLIST_OFFER_HOURS=2)
def test_an_offer_made_at_half_past_nine_with_a_two_hour_hold_runs_until_eight_the_next_morning():
    assert offer_deadline(far_event(), now=local(2026, 12, 1, 21, 30)) == local(2026, 12, 2, 8, 0)


@override_settings(WAITLIST_OFFER_HOURS=2)
@pytest.mark.parametrize(
    ("now", "deadline"),
    [
        (local(2026, 12, 1, 19, 59), local(2026, 12, 1, 21, 59)),  # before the night: as it was
        (local(2026, 12, 1, 20, 0), local(2026, 12, 2, 8, 0)),  # 22:00 is night
        (local(2026, 12, 2, 1, 9), local(2026, 12, 2, 8, 0)),  # 03:09 becomes 08:00 the same morning
        (local(2026, 12, 2, 6, 0), local(2026, 12, 2, 8, 0)),  # 08:00 itself is morning
        (local(2026, 12, 2, 6, 1), local(2026, 12, 2, 8, 1)),
    ],
)
def test_only_a_deadline_in_the_night_moves(now, deadline):
    assert offer_deadline(far_event(), now=now) == deadline


def test_the_default_twelve_hours_from_the_afternoon_end_at_eight():
    assert offer_deadline(far_event(), now=local(2026, 12, 1, 15, 9)) == local(2026, 12, 2, 8, 0)


@override_settings(WAITLIST_OFFER_HOURS=2)
@pytest.mark.parametrize(
    ("now", "morning"),
    [
        (local(2026, 3, 28, 23, 0), local(2026, 3, 29, 8, 0)),  # the clocks go forward that night
        (local(2026, 10, 24, 23, 0), local(2026, 10, 25, 8, 0)),  # and back
    ],
)
def test_the_morning_is_eight_local_time_on_a_night_the_clocks_change(now, morning):
    deadline = offer_deadline(far_event(), now=now)
    assert deadline == morning and deadline.astimezone(ZONE).hour == 8


@override_settings(WAITLIST_OFFER_HOURS=2)
def test_an_early_event_still_ends_its_offer_at_its_start():
    start = local(2026, 12, 2, 7, 30)  # a sunrise swim: the place is no use after the start
    assert offer_deadline(EventFactory(event_date=start), now=local(2026, 12, 1, 21, 30)) == start
