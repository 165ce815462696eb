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
    event_sign_up,
)
from apps.notifications.models import Mail
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


def test_twenty_parallel_joins_and_leaves_at_capacity_five_keep_the_waitlist_order():
    """Five participants leave while fifteen newcomers sign up, all at once, with five already waiting.

    Never more than five places, the five who waited get the freed places (not a newcomer who was
    quicker), and the newcomers queue behind them in the order the lock let them in: positions 1..15
    without a gap, each answer matching the stored order.
    """
    requires_postgresql()
    event = EventFactory(max_participants=5)
    leaving = UserFactory.create_batch(5)
    for user in leaving:
        EventParticipantFactory(event=event, user=user)
    waiting = UserFactory.create_batch(5)
    for user in waiting:
        assert event_sign_up(user=user, event_id=event.pk).waitlist_position is not None
    newcomers = UserFactory.create_batch(15)

    def act(i: int):
        if i < 5:
            return event_leave(user=leaving[i], event_id=event.pk)
        return event_sign_up(user=newcomers[i - 5], event_id=event.pk)

    results = run_concurrently(act, times=20)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert all(r == Left.PLACE for r in results[:5]), results[:5]
    # The five freed places are offered (held) to the five who waited, never to a quicker newcomer.
    assert event.participants.count() == 0
    offered = set(event.waitlist.filter(offer_expires_at__isnull=False).values_list("user_id", flat=True))
    assert offered == {u.pk for u in waiting}
    queue = list(event.waitlist.filter(offer_expires_at__isnull=True).order_by("id").values_list("user_id", flat=True))
    assert sorted(queue) == sorted(u.pk for u in newcomers)
    # The freed places went to the waiting ones before any newcomer was let in, so the k-th newcomer in the
    # stored order was told place 5 + k + 1: no place skipped or given twice.
    told = {newcomers[i - 5].pk: results[i].waitlist_position for i in range(5, 20)}
    assert [told[pk] for pk in queue] == list(range(6, 21)), (queue, told)
    assert Mail.objects.filter(kind="waitlist_offer").count() == 5


def test_parallel_leaves_and_joins_of_the_waitlist_never_skip_a_place():
    """Waiting members leave the waitlist while participants cancel: every freed place goes to the first
    one still waiting, and nobody who left the waitlist gets a place."""
    requires_postgresql()
    event = EventFactory(max_participants=5)
    participants = UserFactory.create_batch(5)
    for user in participants:
        EventParticipantFactory(event=event, user=user)
    waiting = UserFactory.create_batch(15)
    for user in waiting:
        event_sign_up(user=user, event_id=event.pk)
    quitting = waiting[:10:2]  # five of the first ten give up their waitlist place

    def act(i: int):
        if i < 5:
            return event_leave(user=participants[i], event_id=event.pk)
        return event_leave(user=quitting[i - 5], event_id=event.pk)

    results = run_concurrently(act, times=10)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert event.participants.count() == 0
    placed = set(event.waitlist.filter(offer_expires_at__isnull=False).values_list("user_id", flat=True))
    assert len(placed) == 5
    assert not placed & {u.pk for u in quitting}
    assert not placed & {u.pk for u in participants}
    # Whoever got a place stood before everyone still waiting.
    remaining = list(
        event.waitlist.filter(offer_expires_at__isnull=True).order_by("id").values_list("user_id", flat=True)
    )
    order = [u.pk for u in waiting]
    assert max(order.index(pk) for pk in placed) < min(order.index(pk) for pk in remaining)
