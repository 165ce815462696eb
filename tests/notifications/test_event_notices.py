"""An event's new time or place, or an event that does not go on, is told to its participants and its waitlist:
by push to their devices, by mail without one, not at all when they turned event mails off."""

import datetime

import pytest
from django.utils import timezone

from apps.events.services import event_delete, event_save, event_sign_up, events_deactivate
from apps.notifications.models import Mail
from apps.notifications.services import mail_preference_set, push_subscription_save
from tests.factories import EventFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_event():
    """One place, taken; one member waiting, with a phone; one past-event check is separate."""
    event = EventFactory(
        title="Nieuwjaarsduik",
        location="Scheveningen",
        max_participants=1,
        event_date=timezone.now() + datetime.timedelta(days=5),
    )
    participant, waiting = UserFactory.create_batch(2)
    event_sign_up(user=participant, event_id=event.pk)
    event_sign_up(user=waiting, event_id=event.pk)
    return event, participant, waiting


def _phone(push_receiver, user):
    browser = push_receiver.subscribe()
    push_subscription_save(user=user, subscription=browser.as_json())
    return browser


def test_a_new_time_reaches_participants_and_the_waitlist(push_receiver, smtp_server, full_event):
    event, participant, waiting = full_event
    browser = _phone(push_receiver, waiting)
    event.event_date += datetime.timedelta(hours=1)
    event.location = "Zandvoort"
    event_save(event=event)
    run_worker()

    [payload] = push_receiver.for_endpoint(browser.endpoint)
    assert payload["title"] == "Gewijzigd: Nieuwjaarsduik"
    assert payload["body"].startswith("Nieuwe tijd en plaats: ") and payload["body"].endswith("· Zandvoort.")
    message = smtp_server.only()  # the participant without a phone: by mail
    assert message["To"] == participant.email and message["Subject"] == "Gewijzigd: Nieuwjaarsduik"


def test_an_edit_that_keeps_time_and_place_tells_nobody(push_receiver, smtp_server, full_event):
    event, _, waiting = full_event
    _phone(push_receiver, waiting)
    event.description = "Neem een muts mee."
    event_save(event=event)
    run_worker()
    assert push_receiver.received == [] and smtp_server.messages == []


def test_taken_off_or_deleted_is_a_cancellation(push_receiver, full_event):
    event, participant, waiting = full_event
    browser = _phone(push_receiver, waiting)
    events_deactivate(event_ids=[event.pk])
    run_worker()
    assert [p["title"] for p in push_receiver.for_endpoint(browser.endpoint)] == ["Afgelast: Nieuwjaarsduik"]
    assert Mail.objects.filter(user=participant, kind="event_cancelled").count() == 1

    other = EventFactory(title="Avondduik", event_date=timezone.now() + datetime.timedelta(days=2))
    event_sign_up(user=waiting, event_id=other.pk)
    event_delete(event_id=other.pk)
    run_worker()
    assert push_receiver.for_endpoint(browser.endpoint)[-1]["title"] == "Afgelast: Avondduik"


def test_no_event_mails_means_no_change_notices(push_receiver, smtp_server, full_event):
    event, participant, _ = full_event
    mail_preference_set(user=participant, event_mails=False)
    event.location = "Zandvoort"
    event_save(event=event)
    run_worker()
    assert participant.email not in [m["To"] for m in smtp_server.messages]
