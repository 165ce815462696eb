"""Parallel saves of one event's attendance on PostgreSQL (two organisers, a double tap): one stamp per member."""

import datetime

import pytest
from django.utils import timezone

from apps.attendance.models import Attendance
from apps.attendance.services import AttendanceResult, attendance_save
from apps.challenges.models import Dip
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import AdminFactory, EventFactory, EventParticipantFactory, UserChallengeFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_ten_parallel_saves_stamp_each_member_once():
    requires_postgresql()
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1))
    organisers = AdminFactory.create_batch(2)
    members = UserFactory.create_batch(3)
    for member in members:
        UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=2))
        EventParticipantFactory(event=event, user=member)
    ids = [member.pk for member in members]

    results = run_concurrently(
        lambda i: attendance_save(event_id=event.pk, organiser=organisers[i % 2], present_user_ids=ids), times=10
    )

    assert all(isinstance(result, AttendanceResult) for result in results), results
    assert sorted(name for result in results for name in result.stamped) == sorted(m.display_name for m in members)
    assert Dip.objects.count() == 3 and Attendance.objects.filter(dip__isnull=False).count() == 3


def test_parallel_tick_and_untick_leave_card_and_record_in_step():
    requires_postgresql()
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1))
    organiser = AdminFactory()
    member = UserFactory()
    UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=2))
    EventParticipantFactory(event=event, user=member)

    run_concurrently(
        lambda i: attendance_save(
            event_id=event.pk, organiser=organiser, present_user_ids=[member.pk] if i % 2 else []
        ),
        times=10,
    )

    records = list(Attendance.objects.all())
    dips = list(Dip.objects.all())
    assert len(dips) == len(records) <= 1
    if records:
        assert records[0].dip_id == dips[0].pk


def test_parallel_shore_taps_of_two_phones_end_at_the_latest_with_one_stamp():
    """Aan de waterkant: two organisers' queues arriving at once, in and out crossed: one row, one stamp, and the
    latest tap says where she is."""
    from apps.attendance.models import ShoreSwimmer
    from apps.attendance.shore import shore_tap

    requires_postgresql()
    now = timezone.localtime()
    start_of_day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    event = EventFactory(event_date=max(now - datetime.timedelta(hours=1), start_of_day))
    organisers = AdminFactory.create_batch(2)
    member = UserFactory()
    UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=2))
    EventParticipantFactory(event=event, user=member)
    # Tap i happened i seconds after the first; the last one (an "uit") is the latest.
    moments = [max(now - datetime.timedelta(seconds=20 - i), start_of_day) for i in range(10)]

    run_concurrently(
        lambda i: shore_tap(
            event_id=event.pk,
            organiser=organisers[i % 2],
            swimmer=f"lid-{member.pk}",
            kind="uit" if i % 2 else "in",
            tapped_at=moments[i],
            now=now,
        ),
        times=10,
    )

    swimmer = ShoreSwimmer.objects.get()
    assert (swimmer.went_in_at, swimmer.came_out_at) == (moments[8], moments[9]) and not swimmer.in_water
    assert Dip.objects.count() == 1 and Attendance.objects.get().dip_id == Dip.objects.get().pk
