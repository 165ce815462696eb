"""Parallel sign-ups on PostgreSQL: the row lock and the unique participation hold the line."""

import pytest

from apps.events.models import EventParticipant
from apps.events.services import (
    MESSAGE_DUPLICATE,
    EventAlreadyJoined,
    EventError,
    EventFull,
    Left,
    event_join,
    event_leave,
)
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


def test_twenty_sign_ups_for_five_places_give_exactly_five():
    requires_postgresql()
    event = EventFactory(max_participants=5)
    members = UserFactory.create_batch(20)

    results = run_concurrently(lambda i: event_join(user=members[i], event_id=event.pk), times=20)

    joined = [r for r in results if isinstance(r, EventParticipant)]
    full = [r for r in results if isinstance(r, EventFull)]
    assert len(joined) == 5 and len(full) == 15, results
    assert event.participants.count() == 5
    assert set(event.participants.values_list("user_id", flat=True)) == {p.user_id for p in joined}


def test_ten_parallel_joins_by_one_member_make_one_participation():
    requires_postgresql()
    event = EventFactory()
    member = UserFactory()

    results = run_concurrently(lambda _: event_join(user=member, event_id=event.pk), times=10)

    assert sum(isinstance(r, EventParticipant) for r in results) == 1, results
    refused = [r for r in results if not isinstance(r, EventParticipant)]
    assert all(isinstance(r, EventAlreadyJoined) and str(r) == MESSAGE_DUPLICATE for r in refused), results
    assert EventParticipant.objects.filter(event=event, user=member).count() == 1


def test_cancellations_and_sign_ups_at_once_never_overfill():
    """Five members leave while fifteen others try to join an event with five places: never more than five."""
    requires_postgresql()
    event = EventFactory(max_participants=5)
    leaving = UserFactory.create_batch(5)
    for user in leaving:
        EventParticipantFactory(event=event, user=user)
    joining = UserFactory.create_batch(15)

    def act(i: int):
        if i < 5:
            return event_leave(user=leaving[i], event_id=event.pk)
        return event_join(user=joining[i - 5], event_id=event.pk)

    results = run_concurrently(act, times=20)

    unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, EventFull)]
    assert not unexpected, unexpected
    assert all(r == Left.PLACE for r in results[:5]), results[:5]
    joined = sum(isinstance(r, EventParticipant) for r in results)
    assert event.participants.count() == joined <= 5
    assert not event.participants.filter(user__in=leaving).exists()


def test_parallel_sign_ups_without_a_maximum_all_get_in():
    requires_postgresql()
    event = EventFactory(max_participants=None)
    members = UserFactory.create_batch(20)

    results = run_concurrently(lambda i: event_join(user=members[i], event_id=event.pk), times=20)

    assert not [r for r in results if isinstance(r, EventError | Exception)], results
    assert event.participants.count() == 20
