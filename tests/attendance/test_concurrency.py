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
