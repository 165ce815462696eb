"""Organising events (/admin's services): one event, a weekly series, editing one or this-and-following,
afgelasten; a new time or place and a cancellation are told to both lists, once per change."""

import datetime
import zoneinfo

import pytest
from django.utils import timezone

from apps.events.models import Event, EventSeries
from apps.events.services import (
    MESSAGE_ALREADY_CANCELLED,
    MESSAGE_CANCEL_REASON_REQUIRED,
    MESSAGE_CANCELLED,
    MESSAGE_PAST,
    MESSAGE_REPEAT_BEFORE_START,
    MESSAGE_SERIES_TOO_LONG,
    MESSAGE_START_IN_PAST,
    MESSAGE_TITLE_REQUIRED,
    EventDetails,
    EventError,
    event_cancel,
    event_create,
    event_save,
    event_series_create,
    event_update,
)
from apps.notifications.models import Mail
from apps.notifications.services import mail_preference_set
from tests.factories import EventFactory, EventParticipantFactory, EventWaitlistEntryFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")


def _sunday_at_eleven(weeks_ahead: int = 1) -> datetime.datetime:
    today = timezone.localdate()
    sunday = today + datetime.timedelta(days=(6 - today.weekday()) % 7 + 7 * weeks_ahead)
    return datetime.datetime.combine(sunday, datetime.time(11), tzinfo=AMSTERDAM)


def _details(**changes) -> EventDetails:
    values = {
        "title": "Zondagduik",
        "starts_at": _sunday_at_eleven(),
        "location": "Strandpaviljoen 12",
        "description": "Iedere zondag om 11 uur.",
        "max_participants": 20,
    } | changes
    return EventDetails(**values)


def test_event_create_makes_one_event_without_a_series():
    event = event_create(details=_details())
    assert (event.title, event.location, event.max_participants, event.series_id) == (
        "Zondagduik",
        "Strandpaviljoen 12",
        20,
        None,
    )


def test_a_weekly_series_of_a_year_keeps_eleven_oclock_across_summer_time():
    first = _sunday_at_eleven()
    until = timezone.localdate(first) + datetime.timedelta(weeks=51)
    events = event_series_create(details=_details(starts_at=first), repeat_until=until)
    assert len(events) == 52
    assert EventSeries.objects.get().events.count() == 52
    local = [timezone.localtime(event.event_date, AMSTERDAM) for event in Event.objects.order_by("event_date")]
    assert {moment.time() for moment in local} == {datetime.time(11)}
    assert {moment.weekday() for moment in local} == {6}
    assert local[-1].date() == until


@pytest.mark.parametrize(
    ("details", "until", "message"),
    [
        ({"title": "  "}, None, MESSAGE_TITLE_REQUIRED),
        ({"starts_at": timezone.now() - datetime.timedelta(minutes=1)}, None, MESSAGE_START_IN_PAST),
        ({}, -1, MESSAGE_REPEAT_BEFORE_START),
        ({}, 7 * 60, MESSAGE_SERIES_TOO_LONG),
    ],
)
def test_bad_input_is_refused_in_dutch_and_writes_nothing(details, until, message):
    with pytest.raises(EventError, match=message.split(".")[0]):
        if until is None:
            event_create(details=_details(**details))
        else:
            first = _sunday_at_eleven()
            event_series_create(
                details=_details(starts_at=first),
                repeat_until=timezone.localdate(first) + datetime.timedelta(days=until),
            )
    assert not Event.objects.exists()


def _series(weeks: int = 4) -> list[Event]:
    first = _sunday_at_eleven()
    return event_series_create(
        details=_details(starts_at=first), repeat_until=timezone.localdate(first) + datetime.timedelta(weeks=weeks - 1)
    )


def test_editing_this_and_following_moves_the_later_events_by_the_same_wall_clock_time():
    events = _series(4)
    second = events[1]
    new_start = timezone.localtime(second.event_date, AMSTERDAM).replace(hour=10, minute=30)
    change = event_update(event_id=second.pk, details=_details(starts_at=new_start, location="De pier"), following=True)
    assert [event.pk for event in change.events] == [event.pk for event in events[1:]]
    times = [
        (timezone.localtime(event.event_date, AMSTERDAM).time(), event.location)
        for event in Event.objects.order_by("event_date")
    ]
    assert times == [
        (datetime.time(11), "Strandpaviljoen 12"),
        (datetime.time(10, 30), "De pier"),
        (datetime.time(10, 30), "De pier"),
        (datetime.time(10, 30), "De pier"),
    ]


def test_editing_one_event_of_a_series_leaves_the_others():
    events = _series(3)
    event_update(event_id=events[0].pk, details=_details(starts_at=events[0].event_date, title="Kerstduik"))
    assert list(Event.objects.order_by("event_date").values_list("title", flat=True)) == [
        "Kerstduik",
        "Zondagduik",
        "Zondagduik",
    ]


def test_a_new_time_or_place_tells_participants_and_the_waitlist_once(mailoutbox):
    event = event_create(details=_details(max_participants=1))
    participant, waiting, quiet = UserFactory(), UserFactory(), UserFactory()
    EventParticipantFactory(event=event, user=participant)
    EventWaitlistEntryFactory(event=event, user=waiting)
    EventParticipantFactory(event=EventFactory(), user=quiet)  # another event's member hears nothing
    moved = _details(max_participants=1, location="De pier")
    event_update(event_id=event.pk, details=moved)
    event_update(event_id=event.pk, details=moved)  # the same change again (a double submit)
    mails = Mail.objects.filter(kind="event_changed")
    assert sorted(mails.values_list("user_id", flat=True)) == sorted([participant.pk, waiting.pk])
    run_worker()
    assert sorted(message.to[0] for message in mailoutbox) == sorted([participant.email, waiting.email])
    assert mailoutbox[0].subject == "Gewijzigd: Zondagduik"
    assert "Waar: De pier" in mailoutbox[0].body


def test_a_new_title_alone_sends_nothing_and_a_member_who_turned_event_mail_off_gets_none():
    event = event_create(details=_details())
    loud, off = UserFactory(), UserFactory()
    EventParticipantFactory(event=event, user=loud)
    EventParticipantFactory(event=event, user=off)
    mail_preference_set(user=off, event_mails=False)
    event_update(event_id=event.pk, details=_details(title="Andere titel"))
    assert not Mail.objects.filter(kind="event_changed").exists()
    change = event_update(event_id=event.pk, details=_details(starts_at=event.event_date + datetime.timedelta(hours=1)))
    assert change.notified == 1
    assert list(Mail.objects.filter(kind="event_changed").values_list("user_id", flat=True)) == [loud.pk]


def test_raising_the_maximum_offers_the_place_to_the_waitlist():
    event = event_create(details=_details(max_participants=1))
    EventParticipantFactory(event=event)
    waiting = EventWaitlistEntryFactory(event=event)
    change = event_update(event_id=event.pk, details=_details(max_participants=2))
    assert change.offered == 1
    waiting.refresh_from_db()
    assert waiting.offer_expires_at is not None  # an offer: "Ik kom" makes it a place (tests/events/test_offers.py)
    assert not event.participants.filter(user=waiting.user).exists()


def test_the_maximum_cannot_go_below_who_already_signed_up():
    event = event_create(details=_details(max_participants=5))
    EventParticipantFactory.create_batch(3, event=event)
    with pytest.raises(EventError, match="heeft al 3 deelnemers"):
        event_update(event_id=event.pk, details=_details(max_participants=2))
    event.refresh_from_db()
    assert event.max_participants == 5


def test_afgelasten_keeps_the_lists_tells_them_the_reason_and_refuses_a_second_time(mailoutbox):
    event = event_create(details=_details())
    participant = EventParticipantFactory(event=event).user
    waiting = EventWaitlistEntryFactory(event=event).user
    change = event_cancel(event_id=event.pk, reason="Storm op zee")
    assert change.notified == 2
    event.refresh_from_db()
    assert (event.is_active, event.cancel_reason, event.is_cancelled) == (False, "Storm op zee", True)
    assert event.participants.count() == 1
    with pytest.raises(EventError, match=MESSAGE_ALREADY_CANCELLED):
        event_cancel(event_id=event.pk, reason="Nog eens")
    with pytest.raises(EventError, match=MESSAGE_CANCELLED.split(":")[0]):
        event_update(event_id=event.pk, details=_details())
    run_worker()
    assert sorted(message.to[0] for message in mailoutbox) == sorted([participant.email, waiting.email])
    assert mailoutbox[0].subject == "Afgelast: Zondagduik"
    assert "Reden: Storm op zee" in mailoutbox[0].body


def test_afgelasten_this_and_following_leaves_the_earlier_ones():
    events = _series(4)
    change = event_cancel(event_id=events[2].pk, reason="Zwembad dicht", following=True)
    assert len(change.events) == 2
    assert list(Event.objects.order_by("event_date").values_list("is_active", flat=True)) == [
        True,
        True,
        False,
        False,
    ]


def test_afgelasten_needs_a_reason_and_a_coming_event():
    event = event_create(details=_details())
    with pytest.raises(EventError, match=MESSAGE_CANCEL_REASON_REQUIRED.split(":")[0]):
        event_cancel(event_id=event.pk, reason="   ")
    past = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1))
    with pytest.raises(EventError, match=MESSAGE_PAST):
        event_cancel(event_id=past.pk, reason="Te laat")


def test_the_django_admin_save_tells_a_new_place_and_reactivating_ends_afgelast():
    event = event_create(details=_details())
    EventParticipantFactory(event=event)
    event.location = "Het meer"
    event_save(event=event)
    assert Mail.objects.filter(kind="event_changed").count() == 1
    event_cancel(event_id=event.pk, reason="Ijs")
    event.refresh_from_db()
    event.is_active = True
    event_save(event=event)
    event.refresh_from_db()
    assert (event.is_cancelled, event.cancel_reason) == (False, "")
