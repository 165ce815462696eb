"""Leaving at the moment of an offer: the leave and the offer take the event's lock one after the other, and
"Er is een plek vrij" goes out only for an offer that stands."""

import threading

import pytest
from django.core import mail as outbox
from django.db import DatabaseError, transaction

from apps.events.models import EventParticipant, EventWaitlistEntry
from apps.events.services import Left, event_leave
from apps.notifications.models import Mail
from tests.concurrency import in_thread, requires_postgresql, wait_for_lock_waiters
from tests.factories import EventFactory, EventParticipantFactory, UserFactory
from tests.mailbox import run_worker


def _full_event_with_one_waiting():
    event = EventFactory(title="Nieuwjaarsduik", max_participants=1)
    leaving = EventParticipantFactory(event=event).user
    waiting = UserFactory()
    EventWaitlistEntry.objects.create(event=event, user=waiting)
    return event, leaving, waiting


def _promotion_mails(user) -> list[str]:
    return list(Mail.objects.filter(kind="waitlist_offer", user=user).values_list("status", flat=True))


@pytest.mark.django_db
def test_a_member_offered_a_place_and_leaving_before_the_mail_went_gets_no_mail():
    event, leaving, waiting = _full_event_with_one_waiting()
    event_leave(user=leaving, event_id=event.pk)
    assert _promotion_mails(waiting) == [Mail.Status.QUEUED]
    assert event_leave(user=waiting, event_id=event.pk) == Left.WAITLIST
    assert _promotion_mails(waiting) == []
    run_worker()
    assert not [m for m in outbox.outbox if "plek vrij" in m.subject]


@pytest.mark.django_db
def test_an_offer_mail_already_sent_stays_on_record_when_the_member_leaves_later():
    event, leaving, waiting = _full_event_with_one_waiting()
    event_leave(user=leaving, event_id=event.pk)
    run_worker()
    event_leave(user=waiting, event_id=event.pk)
    assert _promotion_mails(waiting) == [Mail.Status.SENT]
    assert len([m for m in outbox.outbox if m.to == [waiting.email]]) == 1


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_leaving_the_waitlist_while_a_place_frees_up_sends_no_offer_mail():
    requires_postgresql()
    event, leaving, waiting = _full_event_with_one_waiting()
    after_waiting = UserFactory()
    EventWaitlistEntry.objects.create(event=event, user=after_waiting)

    # The promotion commits while the waiting member's "Afmelden" already waits on the event's lock.
    promoted, release = threading.Event(), threading.Event()

    def free_a_place():
        with transaction.atomic():
            event_leave(user=leaving, event_id=event.pk)
            promoted.set()
            release.wait(30)

    promotion = in_thread(free_a_place)
    assert promoted.wait(30)
    leave = in_thread(lambda: event_leave(user=waiting, event_id=event.pk))
    wait_for_lock_waiters(1)
    release.set()

    assert promotion() is None
    left = leave()
    assert not isinstance(left, DatabaseError), left
    assert left == Left.WAITLIST  # the offer went back: the member wanted out
    assert not EventParticipant.objects.filter(event=event, user=waiting).exists()
    assert not EventWaitlistEntry.objects.filter(event=event, user=waiting).exists()
    assert _promotion_mails(waiting) == []
    # The place went on to the next one waiting, with their mail.
    assert EventWaitlistEntry.objects.get(event=event, user=after_waiting).offer_expires_at is not None
    assert _promotion_mails(after_waiting) == [Mail.Status.QUEUED]
    run_worker()
    assert [m.to for m in outbox.outbox] == [[after_waiting.email]]
