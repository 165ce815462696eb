"""Aan de waterkant (apps/attendance/shore.py): taps in any order end at the later tap, a tap twice is once,
whoever went in is at the swim (one swim, one stamp), "Iedereen is eruit" only when the list agrees, and the
times are gone after the day of the swim while attendance stays. On SQLite and PostgreSQL alike."""

import datetime
import uuid

import pytest
from django.db import IntegrityError, transaction

from apps.attendance.models import Attendance, ShoreList, ShoreSwimmer
from apps.attendance.refusals import ShoreRefusal
from apps.attendance.shore import ShoreError, shore_close, shore_forget, shore_member_add, shore_tap
from apps.attendance.shore_state import shore_state
from apps.challenges.models import Dip
from apps.challenges.services.dips import dip_register
from apps.events.models import Event
from tests.factories import (
    AdminFactory,
    EventFactory,
    EventGuestFactory,
    EventParticipantFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

MINUTE = datetime.timedelta(minutes=1)


@pytest.fixture
def organiser():
    return AdminFactory(full_name="Olga Organisator")


@pytest.fixture
def swim(now):
    return EventFactory(title="Zondagduik", event_date=now - 60 * MINUTE, open_for_guests=True)


def _swimmer(swim, name="Marit Zwemmer"):
    member = UserFactory(full_name=name)
    card = UserChallengeFactory(user=member, started_at=swim.event_date - datetime.timedelta(days=3))
    EventParticipantFactory(event=swim, user=member)
    return member, card


def _tap(swim, organiser, swimmer, kind, at, now, **extra):
    return shore_tap(event_id=swim.pk, organiser=organiser, swimmer=swimmer, kind=kind, tapped_at=at, now=now, **extra)


def _in_water(swim, now) -> list[str]:
    state = shore_state(swim, now=now)
    return [
        row["name"]
        for row in state["swimmers"]
        if row["went_in_at"] and (not row["came_out_at"] or row["came_out_at"] < row["went_in_at"])
    ]


def test_in_marks_her_present_with_one_stamp_however_often_it_is_sent(swim, organiser, now):
    member, card = _swimmer(swim)
    for _ in range(2):
        _tap(swim, organiser, f"lid-{member.pk}", "in", now - 20 * MINUTE, now)
    record = Attendance.objects.get(event=swim, user=member)
    assert record.dip is not None and record.signed_off_by == organiser
    assert card.dips.count() == 1
    swimmer = ShoreSwimmer.objects.get(user=member)
    assert swimmer.went_in_at == now - 20 * MINUTE and swimmer.in_water
    assert _in_water(swim, now) == ["Marit Zwemmer"]


def test_her_own_dip_of_this_swim_is_signed_off_not_doubled(swim, organiser, now, settings):
    settings.DIP_SAME_SWIM_HOURS = 3  # the production default (off in the test settings)
    member, card = _swimmer(swim)
    dip_register(user=member, now=now - 30 * MINUTE)
    _tap(swim, organiser, f"lid-{member.pk}", "in", now - 20 * MINUTE, now)
    assert card.dips.count() == 1
    assert Attendance.objects.get(user=member).dip == Dip.objects.get(user_challenge=card)


@pytest.mark.parametrize("order", ["as_tapped", "crossed"])
def test_two_phones_agree_on_the_later_tap_whatever_order_they_arrive_in(swim, organiser, now, order):
    member, _card = _swimmer(swim)
    other = AdminFactory(full_name="Otto Organisator")
    taps = [
        (organiser, "in", now - 30 * MINUTE),
        (other, "uit", now - 10 * MINUTE),  # the other phone saw her come out
        (organiser, "in", now - 20 * MINUTE),  # an older "in" from an offline phone, arriving late
    ]
    if order == "crossed":
        taps.reverse()
    for who, kind, at in taps:
        _tap(swim, who, f"lid-{member.pk}", kind, at, now)
    swimmer = ShoreSwimmer.objects.get(user=member)
    assert (swimmer.went_in_at, swimmer.came_out_at) == (now - 20 * MINUTE, now - 10 * MINUTE)
    assert not swimmer.in_water
    # In again after that: the latest tap says where she is.
    _tap(swim, organiser, f"lid-{member.pk}", "in", now - 5 * MINUTE, now)
    assert ShoreSwimmer.objects.get(user=member).in_water


def test_a_tap_from_the_future_is_taken_as_now(swim, organiser, now):
    member, _card = _swimmer(swim)
    _tap(swim, organiser, f"lid-{member.pk}", "in", now + datetime.timedelta(hours=3), now)
    assert ShoreSwimmer.objects.get(user=member).went_in_at == now


def test_guests_of_the_link_and_on_the_spot_are_on_the_list(swim, organiser, now):
    guest = EventGuestFactory(event=swim, name="Gijs Gast")
    key = uuid.uuid4()
    for _ in range(2):  # added offline and sent twice: one row
        _tap(swim, organiser, f"nieuw-{key}", "gast", now - 25 * MINUTE, now, first_name="  Anna ")
    _tap(swim, organiser, f"nieuw-{key}", "in", now - 24 * MINUTE, now)
    _tap(swim, organiser, f"gast-{guest.pk}", "in", now - 23 * MINUTE, now)
    assert ShoreSwimmer.objects.get(spot_key=key).first_name == "Anna"
    assert _in_water(swim, now) == ["Anna", "Gijs Gast"]
    assert not Attendance.objects.exists()  # guests have no card


def test_a_member_who_did_not_sign_up_is_added_by_the_organiser(swim, organiser, now):
    walk_in = UserFactory(full_name="Wim Zonderaanmelding")
    with pytest.raises(ShoreError) as refused:
        _tap(swim, organiser, f"lid-{walk_in.pk}", "in", now, now)
    assert refused.value.code == ShoreRefusal.SHORE_SWIMMER_UNKNOWN
    shore_member_add(event_id=swim.pk, user=walk_in, now=now)
    _tap(swim, organiser, f"lid-{walk_in.pk}", "in", now, now)
    assert Attendance.objects.filter(user=walk_in, event=swim).exists()


@pytest.mark.parametrize(
    ("swimmer", "kind", "code"),
    [
        ("lid-x", "in", ShoreRefusal.SHORE_BAD_TAP),
        ("iemand-1", "in", ShoreRefusal.SHORE_BAD_TAP),
        ("nieuw-niet-een-uuid", "gast", ShoreRefusal.SHORE_BAD_TAP),
        ("lid-1", "zwemmen", ShoreRefusal.SHORE_BAD_TAP),
        ("lid-1", "gast", ShoreRefusal.SHORE_BAD_TAP),
        (f"nieuw-{uuid.UUID(int=1)}", "gast", ShoreRefusal.SHORE_NAME_EMPTY),
        (f"nieuw-{uuid.UUID(int=1)}", "in", ShoreRefusal.SHORE_SWIMMER_UNKNOWN),
        ("gast-999999", "in", ShoreRefusal.SHORE_SWIMMER_UNKNOWN),
    ],
)
def test_a_tap_that_does_not_fit_is_refused_with_its_code_and_nothing_written(
    swim, organiser, now, swimmer, kind, code
):
    with pytest.raises(ShoreError) as refused:
        _tap(swim, organiser, swimmer, kind, now, now)
    assert refused.value.code == code and refused.value.message
    assert not ShoreSwimmer.objects.exists()


def test_only_on_the_day_of_the_swim_and_not_when_afgelast(swim, organiser, now):
    member, _card = _swimmer(swim)
    tomorrow = now + datetime.timedelta(days=1)
    with pytest.raises(ShoreError) as refused:
        _tap(swim, organiser, f"lid-{member.pk}", "in", tomorrow, tomorrow)
    assert refused.value.code == ShoreRefusal.SHORE_NOT_THE_DAY
    with pytest.raises(ShoreError) as refused:  # tapped yesterday, sent today
        _tap(swim, organiser, f"lid-{member.pk}", "in", now - datetime.timedelta(days=1), now)
    assert refused.value.code == ShoreRefusal.SHORE_NOT_THE_DAY
    Event.objects.filter(pk=swim.pk).update(cancelled_at=now, is_active=False)  # afgelast during the swim
    with pytest.raises(ShoreError) as refused:
        _tap(swim, organiser, f"lid-{member.pk}", "in", now, now)
    assert refused.value.code == ShoreRefusal.SHORE_EVENT_CANCELLED
    assert not ShoreSwimmer.objects.exists()


def test_everyone_out_only_when_the_list_agrees_and_a_later_tap_opens_it_again(swim, organiser, now):
    member, _card = _swimmer(swim)
    ref = f"lid-{member.pk}"
    _tap(swim, organiser, ref, "in", now - 30 * MINUTE, now)
    with pytest.raises(ShoreError) as refused:
        shore_close(event_id=swim.pk, now=now)
    assert refused.value.code == ShoreRefusal.SHORE_STILL_IN_WATER and "Marit Zwemmer" in refused.value.message
    _tap(swim, organiser, ref, "uit", now - 10 * MINUTE, now)
    assert shore_close(event_id=swim.pk, now=now - 5 * MINUTE).closed_at == now - 5 * MINUTE
    # An older "in" arriving after the closing: the closing is the later word, she counts as out.
    _tap(swim, organiser, ref, "in", now - 8 * MINUTE, now)
    assert _in_water(swim, now) == [] and ShoreList.objects.get().closed_at is not None
    # In again after the closing: the swim goes on.
    _tap(swim, organiser, ref, "in", now - MINUTE, now)
    assert _in_water(swim, now) == ["Marit Zwemmer"] and ShoreList.objects.get().closed_at is None


def test_the_times_go_after_the_day_and_attendance_stays(swim, organiser, now):
    member, _card = _swimmer(swim)
    _tap(swim, organiser, f"lid-{member.pk}", "in", now - 30 * MINUTE, now)
    today = EventFactory(event_date=now + 60 * MINUTE)
    ShoreSwimmer.objects.create(
        shore_list=ShoreList.objects.create(event=today), first_name="Anna", spot_key=uuid.uuid4()
    )
    assert shore_forget(now=now) == 0  # still the day
    assert shore_forget(now=now + datetime.timedelta(days=1)) == 2
    assert not ShoreSwimmer.objects.exists()
    assert Attendance.objects.filter(user=member, event=swim).exists()


def test_the_database_keeps_one_kind_of_swimmer_per_row(swim, organiser, now):
    shore_list = ShoreList.objects.create(event=swim)
    member = UserFactory()
    ShoreSwimmer.objects.create(shore_list=shore_list, user=member)
    for fields in (
        {"user": member},  # twice
        {"user": UserFactory(), "first_name": "Anna"},  # a member with a guest's name
        {"first_name": "", "spot_key": uuid.uuid4()},  # a guest on the spot without a name
        {},  # nobody
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            ShoreSwimmer.objects.create(shore_list=shore_list, **fields)


def test_the_state_is_sorted_by_name_and_makes_four_queries_at_any_size(
    swim, organiser, now, django_assert_max_num_queries
):
    for name in ("Zoë", "anna", "Bram"):
        _swimmer(swim, name)
    EventGuestFactory(event=swim, name="Carla")
    with django_assert_max_num_queries(4):
        state = shore_state(swim, now=now)
    assert [row["name"] for row in state["swimmers"]] == ["anna", "Bram", "Carla", "Zoë"]
    for i in range(5):
        member, _card = _swimmer(swim, f"Lid {i}")
        _tap(swim, organiser, f"lid-{member.pk}", "in", now - MINUTE, now)
    with django_assert_max_num_queries(4):
        state = shore_state(swim, now=now)
    assert len(state["swimmers"]) == 9 and state["open"] and state["notice_minutes"] == 15
