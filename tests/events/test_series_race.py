"""Issue 34 §3 on PostgreSQL: "Ik kom elke week" at once. The series' row lock counts members one after the other,
each date's own lock and the unique constraints hold the line."""

import datetime

import pytest
from django.utils import timezone

from apps.events.models import Event, EventParticipant, EventSeriesMember, EventWaitlistEntry
from apps.events.services import EventDetails, SeriesJoin, event_series_create, series_join
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import EventParticipantFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def a_series(weeks: int, *, maximum: int | None) -> list[Event]:
    start = timezone.now() + datetime.timedelta(days=2)
    until = timezone.localdate(start) + datetime.timedelta(weeks=weeks - 1)
    details = EventDetails(title="Zondagduik", starts_at=start, max_participants=maximum)
    return event_series_create(details=details, repeat_until=until)


def test_two_members_at_once_on_a_date_with_one_place_one_gets_it_the_other_waits():
    requires_postgresql()
    dates = a_series(3, maximum=2)
    EventParticipantFactory(event_id=dates[1].pk)  # the second date has one place left
    members = UserFactory.create_batch(2)

    results = run_concurrently(lambda i: series_join(user=members[i], series_id=dates[0].series_id), times=2)

    assert all(isinstance(result, SeriesJoin) for result in results), results
    assert EventParticipant.objects.filter(event_id=dates[1].pk).count() == 2
    assert EventParticipant.objects.filter(event_id=dates[1].pk, user__in=members).count() == 1
    assert EventWaitlistEntry.objects.filter(event_id=dates[1].pk, user__in=members).count() == 1
    for date in (dates[0], dates[2]):
        assert EventParticipant.objects.filter(event_id=date.pk, user__in=members).count() == 2
    assert sorted(result.waiting for result in results) == [0, 1]  # type: ignore[union-attr]


def test_the_same_member_tapping_twice_makes_one_membership():
    requires_postgresql()
    dates = a_series(4, maximum=None)
    member = UserFactory()

    results = run_concurrently(lambda _: series_join(user=member, series_id=dates[0].series_id), times=2)

    assert sorted(result.already for result in results) == [False, True], results  # type: ignore[union-attr]
    assert EventSeriesMember.objects.filter(user=member).count() == 1
    assert EventParticipant.objects.filter(user=member).count() == 4
