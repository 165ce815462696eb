"""Issue 36: an event's change or cancellation is told to everyone on its lists in a few queries, whatever their
number (`notices_send`), so the event's row lock is held briefly; event changes are not held by quiet hours; an
inactive member is told nothing."""

import datetime
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.events.models import EventParticipant, EventWaitlistEntry
from apps.events.services import EventDetails, event_cancel, event_update
from apps.notifications.models import Mail, MailPreference, Notice, NoticePreference, PushSubscription
from apps.notifications.notices import notice_mail_queue
from tests.factories import EventFactory, EventGuestFactory, EventSeriesFactory, UserFactory

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
# A handful: the lock and the event, the two lists, the choices and devices, the keys told before, the rows, the
# tasks. Today's code (one notice_send per member) needed about 11 per participant: 2,207 for 200.
CANCEL_BUDGET = 25


def _crowd(event, count: int, *, waiting: int = 0) -> list:
    """`count` participants and `waiting` on the waitlist: a third with a phone, a third by mail, some Uit."""
    users = UserFactory.create_batch(count + waiting)
    EventParticipant.objects.bulk_create([EventParticipant(event=event, user=user) for user in users[:count]])
    EventWaitlistEntry.objects.bulk_create([EventWaitlistEntry(event=event, user=user) for user in users[count:]])
    PushSubscription.objects.bulk_create(
        [
            PushSubscription(
                user=user,
                endpoint=f"https://push.example.com/{event.pk}/{user.pk}",
                p256dh="BAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
                auth="AAAAAAAAAAAAAAAAAAAAAA",
            )
            for user in users[::3]
        ]
    )
    NoticePreference.objects.bulk_create(
        [NoticePreference(user=user, kind="event_cancelled", channel="off") for user in users[1::10]]
    )
    MailPreference.objects.bulk_create([MailPreference(user=user, event_mails=False) for user in users[2::10]])
    return users


def _told(users) -> set[int]:
    ids = [user.pk for user in users]
    return set(Notice.objects.filter(user_id__in=ids).values_list("user_id", flat=True)) | set(
        Mail.objects.filter(user_id__in=ids).values_list("user_id", flat=True)
    )


def _cancel_queries(participants: int) -> tuple[int, list]:
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3))
    users = _crowd(event, participants, waiting=5)
    EventGuestFactory(event=event)
    with CaptureQueriesContext(connection) as queries:
        event_cancel(event_id=event.pk, reason="Storm")
    return len(queries), users


def test_cancelling_an_event_with_200_participants_costs_a_handful_of_queries(django_assert_max_num_queries):
    small, _ = _cancel_queries(10)
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3))
    users = _crowd(event, 200, waiting=5)
    EventGuestFactory(event=event)
    with django_assert_max_num_queries(CANCEL_BUDGET):
        change = event_cancel(event_id=event.pk, reason="Storm")

    # The same queries for 10 or 200: none per member.
    large, _ = _cancel_queries(200)
    assert large == small
    # Everyone who wants it is told, once, the way they chose; Uit (here, or the old mail choice off) is nothing.
    silent = {user.pk for user in users[1::10]} | {user.pk for user in users[2::10]}
    assert _told(users) == {user.pk for user in users} - silent
    assert change.notified == len(users) - len(silent) + 1  # and the guest, by mail
    phones = {user.pk for user in users[::3]} - silent
    assert set(Notice.objects.filter(kind="event_cancelled").values_list("user_id", flat=True)) >= phones
    mailed = Mail.objects.filter(kind="event_cancelled", user__in=users).exclude(user_id__in=phones)
    assert mailed.count() == len(users) - len(silent) - len(phones)
    # Delivery is the worker's: a few tasks, not one per member.
    assert DBTaskResult.objects.count() < 10


def test_a_series_cancelled_from_one_date_on_costs_the_same_per_date(django_assert_max_num_queries):
    series = EventSeriesFactory()
    start = timezone.now() + datetime.timedelta(days=3)
    events = [EventFactory(series=series, event_date=start + datetime.timedelta(weeks=week)) for week in range(4)]
    for event in events:
        _crowd(event, 40)
    with django_assert_max_num_queries(4 * CANCEL_BUDGET):
        change = event_cancel(event_id=events[0].pk, reason="Ijs", following=True)
    assert len(change.events) == 4
    assert Notice.objects.count() + Mail.objects.count() == change.notified


def test_an_event_change_in_quiet_hours_is_told_at_once(settings):
    local = timezone.now().astimezone(AMSTERDAM)
    settings.QUIET_HOURS_START, settings.QUIET_HOURS_END = local.hour, (local.hour + 2) % 24
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3), location="Pier")
    with_phone, by_mail = _crowd(event, 2)[:2]
    details = EventDetails(
        title=event.title,
        starts_at=event.event_date + datetime.timedelta(hours=1),
        location="Strand",
        description="",
        max_participants=None,
    )
    event_update(event_id=event.pk, details=details)

    notice = Notice.objects.get(user=with_phone, kind="event_changed")
    assert notice.send_after <= timezone.now()  # not held until the quiet hours end
    assert Mail.objects.filter(user=by_mail, kind="event_changed", status="queued").exists()
    # No delivery deferred to the morning (a task without a delay carries the far-future default).
    assert not DBTaskResult.objects.filter(run_after__gt=timezone.now(), run_after__year__lt=9999).exists()


def test_an_inactive_member_is_told_nothing_of_a_cancellation():
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3))
    active, gone = _crowd(event, 2)[:2]
    gone.is_active = False
    gone.save(update_fields=["is_active"])
    event_cancel(event_id=event.pk, reason="Storm")
    assert _told([gone]) == set() and _told([active]) == {active.pk}


def test_a_notice_for_a_member_made_inactive_since_is_not_mailed():
    """The worker's fallback (no device took it) for a member switched off after the notice was queued."""
    gone = UserFactory(is_active=False)
    notice = Notice.objects.create(user=gone, kind="event_cancelled", title="Afgelast", body="b")
    assert notice_mail_queue(notice=notice) is None
    assert not Mail.objects.exists()
