"""The mails that existed before push (day-before reminder, waitlist place, 14-day nudge) go the member's way:
by push to a subscribed device, with the rich mail as the fallback; by mail when they chose it or have no device."""

import datetime
import zoneinfo

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.events.services import event_leave, event_sign_up
from apps.notifications.models import Channel, Mail, Notice
from apps.notifications.services import mail_preference_set, notice_preferences_set, push_subscription_save
from apps.reminders.scheduled import scheduled_mails_send
from tests.factories import DipFactory, EventFactory, EventParticipantFactory, UserChallengeFactory, UserFactory
from tests.mailbox import run_worker

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
NOW = datetime.datetime(2099, 3, 10, 9, 30, tzinfo=AMSTERDAM)
TOMORROW_10 = datetime.datetime(2099, 3, 11, 10, 0, tzinfo=AMSTERDAM)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def _subscribe(push_receiver, user):
    browser = push_receiver.subscribe()
    push_subscription_save(user=user, subscription=browser.as_json())
    return browser


def _run_now():
    """The cron ran at NOW (2099); the worker runs at the real time: make the held rows due."""
    Notice.objects.filter(status="queued").update(send_after=timezone.now())
    DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now() - datetime.timedelta(seconds=1))
    run_worker()


def test_the_day_before_reminder_goes_by_push_to_a_subscribed_member(push_receiver, smtp_server):
    event = EventFactory(event_date=TOMORROW_10, title="Nieuwjaarsduik", location="Scheveningen")
    pushed, mailed = UserFactory.create_batch(2)
    EventParticipantFactory(event=event, user=pushed)
    EventParticipantFactory(event=event, user=mailed)
    browser = _subscribe(push_receiver, pushed)

    assert scheduled_mails_send(now=NOW).reminders == 2
    assert scheduled_mails_send(now=NOW).reminders == 0  # a second run sends nothing twice
    _run_now()

    [payload] = push_receiver.for_endpoint(browser.endpoint)
    assert payload["title"] == "Morgen: Nieuwjaarsduik"
    assert payload["body"] == "11 maart 2099, 10:00 · Scheveningen"
    assert payload["url"] == "/samen"  # the plan list
    # The member without a device got the rich mail, as before.
    message = smtp_server.only()
    assert message["To"] == mailed.email and message["Subject"] == "Morgen: Nieuwjaarsduik"


def test_a_reminder_that_reaches_no_device_falls_back_to_the_rich_mail(push_receiver, smtp_server):
    event = EventFactory(event_date=TOMORROW_10, title="Duik")
    member = UserFactory()
    EventParticipantFactory(event=event, user=member)
    browser = _subscribe(push_receiver, member)
    push_receiver.answer(browser.endpoint, 410)
    scheduled_mails_send(now=NOW)
    _run_now()
    assert Mail.objects.get(user=member).kind == "event_reminder"
    assert smtp_server.only()["Subject"] == "Morgen: Duik"


def test_reminders_by_mail_when_the_member_chose_mail(push_receiver, smtp_server):
    event = EventFactory(event_date=TOMORROW_10, title="Duik")
    member = UserFactory()
    EventParticipantFactory(event=event, user=member)
    _subscribe(push_receiver, member)
    notice_preferences_set(user=member, choices={"event_reminder": Channel.MAIL})
    scheduled_mails_send(now=NOW)
    run_worker()
    assert push_receiver.received == []
    assert smtp_server.only()["Subject"] == "Morgen: Duik"


def test_the_nudge_goes_by_push_and_only_when_asked(push_receiver):
    card = UserChallengeFactory(started_at=NOW - datetime.timedelta(days=60))
    DipFactory(user_challenge=card, user=card.user, number=1, dip_date=(NOW - datetime.timedelta(days=20)).date())
    browser = _subscribe(push_receiver, card.user)
    assert scheduled_mails_send(now=NOW).nudges == 0  # opt-in: off by default
    notice_preferences_set(user=card.user, choices={"dip_nudge": Channel.PUSH})
    assert scheduled_mails_send(now=NOW).nudges == 1
    _run_now()
    [payload] = push_receiver.for_endpoint(browser.endpoint)
    assert payload["title"] == "Al 14 dagen geen plons" and payload["url"] == "/challenge"
    notice_preferences_set(user=card.user, choices={"dip_nudge": Channel.OFF})
    card.user.mail_preference.refresh_from_db()
    assert card.user.mail_preference.dip_nudge is False


def test_a_waitlist_place_is_pushed_at_once_and_withdrawn_when_given_up(push_receiver, smtp_server):
    event = EventFactory(max_participants=1, event_date=timezone.now() + datetime.timedelta(days=3), title="Duik")
    first, waiting = UserFactory.create_batch(2)
    event_sign_up(user=first, event_id=event.pk)
    event_sign_up(user=waiting, event_id=event.pk)
    browser = _subscribe(push_receiver, waiting)

    event_leave(user=first, event_id=event.pk)
    notice = Notice.objects.get(user=waiting, kind="waitlist_place")
    run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT
    [payload] = push_receiver.for_endpoint(browser.endpoint)
    assert payload["title"] == "Er is een plek vrij bij Duik"
    assert smtp_server.messages == []


def test_a_waitlist_place_given_up_before_its_notice_went_sends_nothing(push_receiver):
    event = EventFactory(max_participants=1, event_date=timezone.now() + datetime.timedelta(days=3))
    first, waiting = UserFactory.create_batch(2)
    event_sign_up(user=first, event_id=event.pk)
    event_sign_up(user=waiting, event_id=event.pk)
    _subscribe(push_receiver, waiting)
    event_leave(user=first, event_id=event.pk)
    event_leave(user=waiting, event_id=event.pk)
    run_worker()
    assert not Notice.objects.filter(user=waiting).exists()
    assert push_receiver.received == []


def test_event_mails_unsubscribed_means_no_push_either(push_receiver):
    event = EventFactory(event_date=TOMORROW_10)
    member = UserFactory()
    EventParticipantFactory(event=event, user=member)
    _subscribe(push_receiver, member)
    mail_preference_set(user=member, event_mails=False)
    assert scheduled_mails_send(now=NOW).reminders == 0
