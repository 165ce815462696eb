import datetime
from unittest import mock

import pytest
from django.db.models import QuerySet
from django.utils import timezone

from apps.events.models import Event, EventParticipant
from apps.events.services import (
    MESSAGE_DUPLICATE,
    MESSAGE_FAILED,
    MESSAGE_FULL,
    MESSAGE_INACTIVE,
    MESSAGE_PAST,
    EventAlreadyJoined,
    EventError,
    EventFull,
    Left,
    event_join,
    event_leave,
    events_deactivate,
)
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_join_gives_the_member_a_place(member):
    event = EventFactory()

    participation = event_join(user=member, event_id=event.pk)

    assert participation.event == event and participation.user == member
    assert list(event.participants.values_list("user_id", flat=True)) == [member.pk]


def test_join_takes_the_last_place_of_an_event_with_a_maximum(member):
    event = EventFactory(max_participants=2)
    EventParticipantFactory(event=event)

    event_join(user=member, event_id=event.pk)

    assert event.participants.count() == 2


def test_join_refuses_a_full_event(member):
    event = EventFactory(max_participants=2)
    EventParticipantFactory.create_batch(2, event=event)

    with pytest.raises(EventFull) as raised:
        event_join(user=member, event_id=event.pk)

    assert str(raised.value) == MESSAGE_FULL == "Dit event is vol."
    assert not event.participants.filter(user=member).exists()


def test_join_twice_is_refused_with_the_duplicate_message(member):
    event = EventFactory()
    event_join(user=member, event_id=event.pk)

    with pytest.raises(EventAlreadyJoined) as raised:
        event_join(user=member, event_id=event.pk)

    assert str(raised.value) == MESSAGE_DUPLICATE == "Je bent al aangemeld voor dit event"
    assert event.participants.count() == 1


def test_a_member_who_has_a_place_hears_duplicate_not_full(member):
    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event, user=member)

    with pytest.raises(EventAlreadyJoined):
        event_join(user=member, event_id=event.pk)


def test_join_refuses_a_past_event(member):
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(minutes=1))

    with pytest.raises(EventError) as raised:
        event_join(user=member, event_id=event.pk)

    assert str(raised.value) == MESSAGE_PAST
    assert not EventParticipant.objects.exists()


def test_join_refuses_an_inactive_event(member):
    event = EventFactory(is_active=False)

    with pytest.raises(EventError) as raised:
        event_join(user=member, event_id=event.pk)

    assert str(raised.value) == MESSAGE_INACTIVE
    assert not EventParticipant.objects.exists()


def test_join_of_an_unknown_event_gives_the_generic_message(member):
    with pytest.raises(EventError) as raised:
        event_join(user=member, event_id=987654)

    assert str(raised.value) == MESSAGE_FAILED == "Er ging iets mis met de aanmelding"


def test_the_unique_constraint_is_the_last_guard(member):
    """Should the existence check ever miss a duplicate, the database refuses it and the member hears why."""
    event = EventFactory()
    EventParticipantFactory(event=event, user=member)

    with mock.patch.object(QuerySet, "exists", return_value=False), pytest.raises(EventAlreadyJoined):
        event_join(user=member, event_id=event.pk)

    assert EventParticipant.objects.filter(event=event, user=member).count() == 1


def test_services_take_keyword_arguments_only(member):
    event = EventFactory()
    with pytest.raises(TypeError):
        event_join(member, event.pk)  # type: ignore[misc]
    with pytest.raises(TypeError):
        event_leave(member, event.pk)  # type: ignore[misc]


def test_leave_gives_up_the_place_and_frees_it(member, other_member):
    event = EventFactory(max_participants=1)
    event_join(user=member, event_id=event.pk)

    assert event_leave(user=member, event_id=event.pk) == Left.PLACE

    assert not event.participants.exists()
    event_join(user=other_member, event_id=event.pk)  # the place is free again


def test_leave_only_removes_the_members_own_place(member, other_member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=other_member)

    assert event_leave(user=member, event_id=event.pk) is None

    assert list(event.participants.values_list("user_id", flat=True)) == [other_member.pk]


def test_leaving_twice_is_not_an_error(member):
    event = EventFactory()
    event_join(user=member, event_id=event.pk)

    assert event_leave(user=member, event_id=event.pk) == Left.PLACE
    assert event_leave(user=member, event_id=event.pk) is None


def test_leave_keeps_the_participant_list_of_a_past_event(member):
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(days=1))
    EventParticipantFactory(event=event, user=member)

    with pytest.raises(EventError) as raised:
        event_leave(user=member, event_id=event.pk)

    assert str(raised.value) == MESSAGE_PAST
    assert event.participants.filter(user=member).exists()


def test_leave_of_an_unknown_event_gives_the_generic_message(member):
    with pytest.raises(EventError) as raised:
        event_leave(user=member, event_id=987654)
    assert str(raised.value) == MESSAGE_FAILED


def test_deactivate_keeps_the_participants():
    kept = EventFactory()
    first, second = EventFactory.create_batch(2)
    EventParticipantFactory.create_batch(3, event=first)

    assert events_deactivate(event_ids=[first.pk, second.pk]) == 2

    assert set(Event.objects.filter(is_active=False).values_list("pk", flat=True)) == {first.pk, second.pk}
    assert Event.objects.get(pk=kept.pk).is_active
    assert first.participants.count() == 3
    assert events_deactivate(event_ids=[first.pk]) == 0  # already inactive


def test_many_members_can_join_the_same_open_event():
    event = EventFactory()
    for user in UserFactory.create_batch(5):
        event_join(user=user, event_id=event.pk)
    assert event.participants.count() == 5
