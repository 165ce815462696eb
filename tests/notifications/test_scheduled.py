"""The cron command: day-before event reminders and the opt-in 14-day nudge, idempotent."""

import datetime
import zoneinfo

import pytest
from django.core.management import CommandError, call_command

from apps.notifications.models import Mail
from apps.notifications.services import mail_preference_set
from apps.reminders.scheduled import scheduled_mails_send
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import DipFactory, EventFactory, EventParticipantFactory, UserChallengeFactory, UserFactory
from tests.mailbox import run_worker, text_and_html

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
# A Tuesday morning in Amsterdam; the event is on Wednesday at 10:00.
NOW = datetime.datetime(2099, 3, 10, 9, 30, tzinfo=AMSTERDAM)
TOMORROW_10 = datetime.datetime(2099, 3, 11, 10, 0, tzinfo=AMSTERDAM)


def reminders() -> list[Mail]:
    return list(Mail.objects.filter(kind="event_reminder").order_by("to_email"))


@pytest.mark.django_db
def test_participants_of_tomorrows_events_get_one_reminder_each():
    tomorrow = EventFactory(event_date=TOMORROW_10)
    joined = UserFactory.create_batch(2)
    for user in joined:
        EventParticipantFactory(event=tomorrow, user=user)
    EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10 + datetime.timedelta(days=1)))
    EventParticipantFactory(event=EventFactory(event_date=NOW + datetime.timedelta(hours=3)))  # today
    EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10, is_active=False))

    run = scheduled_mails_send(now=NOW)

    assert run.reminders == 2
    assert {m.user_id for m in reminders()} == {u.pk for u in joined}
    assert all(m.event_id == tomorrow.pk for m in reminders())


@pytest.mark.django_db
def test_running_again_sends_nothing_twice():
    EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10))
    assert scheduled_mails_send(now=NOW).reminders == 1
    assert scheduled_mails_send(now=NOW + datetime.timedelta(hours=1)).reminders == 0
    assert len(reminders()) == 1


@pytest.mark.django_db
def test_no_reminders_before_nine_in_the_morning():
    EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10))
    assert scheduled_mails_send(now=NOW.replace(hour=0, minute=5)).reminders == 0
    assert scheduled_mails_send(now=NOW).reminders == 1


@pytest.mark.django_db
def test_members_who_turned_event_mails_off_get_no_reminder():
    participation = EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10))
    mail_preference_set(user=participation.user, event_mails=False)
    assert scheduled_mails_send(now=NOW).reminders == 0


@pytest.mark.django_db
def test_the_reminder_mail(smtp_server):
    member = UserFactory(full_name="Rita Rillen", email="rita@example.nl")
    EventParticipantFactory(event=EventFactory(title="Woensdagduik", event_date=TOMORROW_10), user=member)
    scheduled_mails_send(now=NOW)

    run_worker()

    message = smtp_server.only()
    assert message["To"] == "rita@example.nl" and message["Subject"] == "Morgen: Woensdagduik"
    text, html = text_and_html(message)
    assert "Hallo Rita Rillen" in text and "woensdag 11 maart 2099, 10:00" in text
    assert "Woensdagduik" in html and "woensdag 11 maart 2099, 10:00" in html
    assert 'href="https://koudwater.example/samen"' in html
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


# The 14-day nudge -------------------------------------------------------------------------------------


def quiet_member(*, days: int, nudge: bool = True):
    card = UserChallengeFactory(started_at=NOW - datetime.timedelta(days=60))
    DipFactory(user_challenge=card, user=card.user, number=1, dip_date=(NOW - datetime.timedelta(days=days)).date())
    if nudge:
        mail_preference_set(user=card.user, dip_nudge=True)
    return card.user


@pytest.mark.django_db
def test_the_nudge_is_opt_in_and_waits_fourteen_days():
    asked = quiet_member(days=14)
    quiet_member(days=30, nudge=False)  # never asked
    quiet_member(days=13)  # not yet

    run = scheduled_mails_send(now=NOW)

    assert run.nudges == 1
    assert list(Mail.objects.filter(kind="dip_nudge").values_list("user_id", flat=True)) == [asked.pk]


@pytest.mark.django_db
def test_one_nudge_per_quiet_stretch():
    member = quiet_member(days=20)
    assert scheduled_mails_send(now=NOW).nudges == 1
    assert scheduled_mails_send(now=NOW + datetime.timedelta(days=3)).nudges == 0
    # A new dip, then quiet again for 14 days: one new nudge.
    card = member.user_challenges.get()
    DipFactory(user_challenge=card, user=member, number=2, dip_date=NOW.date())
    assert scheduled_mails_send(now=NOW + datetime.timedelta(days=14)).nudges == 1


@pytest.mark.django_db
def test_the_nudge_mail_links_the_stamp_card_and_unsubscribes_from_the_nudge_only(smtp_server, client):
    member = quiet_member(days=15)
    scheduled_mails_send(now=NOW)
    run_worker()

    message = smtp_server.only()
    text, html = text_and_html(message)
    assert "14 dagen niet geplonsd" in text and 'href="https://koudwater.example/challenge"' in html
    url = message["List-Unsubscribe"].strip()[1:-1].removeprefix("https://koudwater.example")
    assert client.post(url, {"List-Unsubscribe": "One-Click"}).status_code == 200

    preference = member.mail_preference
    preference.refresh_from_db()
    assert preference.dip_nudge is False and preference.event_mails is True


@pytest.mark.django_db
def test_the_command_prints_what_it_queued(capsys):
    EventParticipantFactory(event=EventFactory(event_date=TOMORROW_10))
    call_command("send_scheduled_mail", "--now", NOW.isoformat())
    assert "1 herinnering(en) voor events" in capsys.readouterr().out


@pytest.mark.django_db
def test_the_command_refuses_a_bad_moment():
    with pytest.raises(CommandError, match="Ongeldig moment"):
        call_command("send_scheduled_mail", "--now", "gisteren")


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_send_each_reminder_once():
    requires_postgresql()
    event = EventFactory(event_date=TOMORROW_10)
    for user in UserFactory.create_batch(10):
        EventParticipantFactory(event=event, user=user)

    results = run_concurrently(lambda _: scheduled_mails_send(now=NOW).reminders, times=4)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(results) == 10
    assert Mail.objects.filter(kind="event_reminder").count() == 10
