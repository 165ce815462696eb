import datetime

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from apps.events.selectors import upcoming_events_for
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def in_days(days: float) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days)


def test_the_next_three_active_events_earliest_first(member):
    later = EventFactory(title="Later", event_date=in_days(10))
    first = EventFactory(title="Eerst", event_date=in_days(1))
    EventFactory(title="Voorbij", event_date=in_days(-1))
    EventFactory(title="Uit", event_date=in_days(2), is_active=False)
    second = EventFactory(title="Tweede", event_date=in_days(3))
    EventFactory(title="Te laat voor de lijst", event_date=in_days(30))

    cards = upcoming_events_for(member)

    assert [card.event for card in cards] == [first, second, later]


def test_each_card_knows_count_joined_and_full(member, other_member):
    open_event = EventFactory(event_date=in_days(1))
    EventParticipantFactory(event=open_event, user=other_member)
    full_event = EventFactory(event_date=in_days(2), max_participants=2)
    EventParticipantFactory.create_batch(2, event=full_event)
    joined_full = EventFactory(event_date=in_days(3), max_participants=1)
    EventParticipantFactory(event=joined_full, user=member)

    opened, full, joined = upcoming_events_for(member)

    assert (opened.participant_count, opened.joined, opened.is_full, opened.can_join) == (1, False, False, True)
    assert (full.participant_count, full.joined, full.is_full, full.can_join) == (2, False, True, False)
    assert (joined.participant_count, joined.joined, joined.is_full, joined.can_join) == (1, True, True, False)


def test_another_members_participation_is_not_mine(member, other_member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=other_member)

    (card,) = upcoming_events_for(member)

    assert not card.joined
    assert upcoming_events_for(other_member)[0].joined


def test_anonymous_sees_events_but_never_joined():
    EventParticipantFactory()
    (card,) = upcoming_events_for(AnonymousUser())
    assert card.participant_count == 1 and not card.joined


@pytest.mark.parametrize("events", [0, 3, 50])
def test_one_query_whatever_the_number_of_events_and_participants(member, django_assert_num_queries, events):
    people = UserFactory.create_batch(8)
    for event in EventFactory.create_batch(events):
        for person in people:
            EventParticipantFactory(event=event, user=person)

    with django_assert_num_queries(1):
        cards = upcoming_events_for(member)
        # Everything the template reads: none of it may go back to the database.
        shown = [(c.event.title, c.participant_count, c.joined, c.is_full, c.can_join) for c in cards]

    assert len(shown) == min(events, 3)
