"""Issue 34 §3: a weekly series is one thing. "Ik kom elke week" signs a member up for every coming date (a place
where there is room, else that date's waitlist), "Ik stop met deze reeks" takes them off again, and one date can
still be skipped or joined on its own; the skip is remembered."""

import datetime

import pytest
from django.utils import timezone

from apps.events.models import (
    Event,
    EventParticipant,
    EventSeriesMember,
    EventSeriesSkip,
    EventWaitlistEntry,
)
from apps.events.refusals import EventRefusal
from apps.events.services import (
    EventDetails,
    EventError,
    event_cancel,
    event_leave,
    event_save,
    event_series_create,
    event_sign_up,
    series_join,
    series_leave,
)
from apps.events.services.series import MESSAGE_SERIES_ALREADY
from tests.factories import EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def a_series(weeks: int = 4, *, maximum: int | None = None, title: str = "Zondagduik") -> list[Event]:
    start = timezone.now() + datetime.timedelta(days=2)
    until = timezone.localdate(start) + datetime.timedelta(weeks=weeks - 1)
    details = EventDetails(title=title, starts_at=start, location="Scheveningen", max_participants=maximum)
    return list(Event.objects.filter(pk__in=[e.pk for e in event_series_create(details=details, repeat_until=until)]))


def places(user) -> set[int]:
    return set(EventParticipant.objects.filter(user=user).values_list("event_id", flat=True))


def test_ik_kom_elke_week_signs_up_for_every_coming_date():
    dates = a_series(4)
    member = UserFactory()
    joined = series_join(user=member, series_id=dates[0].series_id)
    assert (joined.places, joined.waiting, joined.already) == (4, 0, False)
    assert places(member) == {event.pk for event in dates}
    assert EventSeriesMember.objects.filter(series_id=dates[0].series_id, user=member).count() == 1


def test_a_second_tap_makes_one_membership_and_says_so():
    dates = a_series(3)
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    again = series_join(user=member, series_id=dates[0].series_id)
    assert again.already and again.message() == MESSAGE_SERIES_ALREADY
    assert EventSeriesMember.objects.filter(user=member).count() == 1
    assert EventParticipant.objects.filter(user=member).count() == 3


def test_a_full_date_puts_the_member_on_its_waitlist():
    dates = a_series(3, maximum=1)
    EventParticipantFactory(event=dates[1])
    member = UserFactory()
    joined = series_join(user=member, series_id=dates[0].series_id)
    assert (joined.places, joined.waiting) == (2, 1)
    assert places(member) == {dates[0].pk, dates[2].pk}
    assert EventWaitlistEntry.objects.filter(user=member, event=dates[1]).exists()
    assert "wachtlijst" in joined.message()


def test_past_and_cancelled_dates_are_left_alone():
    dates = a_series(3)
    event_cancel(event_id=dates[1].pk, reason="Storm")
    Event.objects.filter(pk=dates[0].pk).update(event_date=timezone.now() - datetime.timedelta(hours=1))
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    assert places(member) == {dates[2].pk}


def test_a_series_without_coming_dates_is_refused_with_a_code():
    dates = a_series(1)
    Event.objects.filter(pk=dates[0].pk).update(event_date=timezone.now() - datetime.timedelta(hours=1))
    with pytest.raises(EventError) as refused:
        series_join(user=UserFactory(), series_id=dates[0].series_id)
    assert refused.value.code == EventRefusal.SERIES_OVER
    assert not EventSeriesMember.objects.exists()
    with pytest.raises(EventError) as unknown:
        series_join(user=UserFactory(), series_id=987654)
    assert unknown.value.code == EventRefusal.SERIES_UNKNOWN


def test_skipping_one_date_is_remembered_and_joining_it_again_forgets():
    dates = a_series(3)
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    event_leave(user=member, event_id=dates[1].pk)
    assert places(member) == {dates[0].pk, dates[2].pk}
    assert EventSeriesSkip.objects.filter(user=member, event=dates[1]).exists()
    # A date added later (the Django admin) signs the member up, but the skipped one stays skipped.
    added = Event(
        title="Zondagduik", event_date=dates[2].event_date + datetime.timedelta(weeks=1), series_id=dates[0].series_id
    )
    event_save(event=added)
    assert places(member) == {dates[0].pk, dates[2].pk, added.pk}
    # Joining the skipped date on its own: back on it, and no longer skipped.
    event_sign_up(user=member, event_id=dates[1].pk)
    assert not EventSeriesSkip.objects.filter(user=member).exists()
    assert dates[1].pk in places(member)


def test_a_non_member_leaving_a_date_leaves_no_skip():
    dates = a_series(2)
    member = UserFactory()
    event_sign_up(user=member, event_id=dates[0].pk)
    event_leave(user=member, event_id=dates[0].pk)
    assert not EventSeriesSkip.objects.exists()


def test_ik_stop_met_deze_reeks_leaves_every_coming_date_and_hands_places_on():
    dates = a_series(3, maximum=1)
    member, waiting = UserFactory(), UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    series_join(user=waiting, series_id=dates[0].series_id)
    assert EventWaitlistEntry.objects.filter(user=waiting).count() == 3
    event_leave(user=member, event_id=dates[0].pk)  # a skip, forgotten when they stop
    assert series_leave(user=member, series_id=dates[0].series_id) == 2
    assert places(member) == set()
    assert not EventSeriesMember.objects.filter(user=member).exists()
    assert not EventSeriesSkip.objects.filter(user=member).exists()
    # The freed places are offered to the next in line, as any cancellation does.
    assert EventWaitlistEntry.objects.filter(user=waiting, offer_expires_at__isnull=False).count() == 3
    assert series_leave(user=member, series_id=dates[0].series_id) is None  # twice: nothing to do, no error


def test_leaving_the_series_keeps_past_dates():
    dates = a_series(2)
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    Event.objects.filter(pk=dates[0].pk).update(event_date=timezone.now() - datetime.timedelta(hours=1))
    series_leave(user=member, series_id=dates[0].series_id)
    assert places(member) == {dates[0].pk}


def test_a_cancelled_date_is_told_to_series_members():
    from apps.notifications.models import Mail, Notice

    dates = a_series(2)
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    change = event_cancel(event_id=dates[1].pk, reason="Blauwalg")
    assert change.notified == 1
    told = Mail.objects.filter(user=member).count() + Notice.objects.filter(user=member).count()
    assert told >= 1


def test_the_membership_goes_with_the_account():
    dates = a_series(2)
    member = UserFactory()
    series_join(user=member, series_id=dates[0].series_id)
    event_leave(user=member, event_id=dates[0].pk)
    member.delete()
    assert not EventSeriesMember.objects.exists() and not EventSeriesSkip.objects.exists()
