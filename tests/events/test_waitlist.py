"""The waitlist: a full event queues members in order, a freed place is offered to the first in the same
transaction, with a mail; leaving the waitlist; an admin raising the maximum. (The offers themselves:
test_offers.py.)"""

import datetime

import pytest
from django.utils import formats, timezone

from apps.events.models import EventParticipant, EventWaitlistEntry
from apps.events.services import (
    MESSAGE_WAITLIST_POSITION,
    EventAlreadyJoined,
    EventAlreadyWaitlisted,
    EventFull,
    Left,
    event_join,
    event_leave,
    event_save,
    event_sign_up,
)
from apps.notifications.models import Mail
from apps.notifications.services import mail_preference_set
from tests.factories import EventFactory, EventParticipantFactory, UserFactory
from tests.mailbox import run_worker, text_and_html

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_event():
    event = EventFactory(title="Nieuwjaarsduik", max_participants=2)
    EventParticipantFactory.create_batch(2, event=event)
    return event


def waiting(event) -> list[int]:
    """Who waits without an offer, in order."""
    return list(event.waitlist.filter(offer_expires_at__isnull=True).order_by("id").values_list("user_id", flat=True))


def offered(event) -> list[int]:
    return list(event.waitlist.filter(offer_expires_at__isnull=False).order_by("id").values_list("user_id", flat=True))


def test_a_sign_up_with_room_is_a_place():
    event = EventFactory(max_participants=2)
    member = UserFactory()
    sign_up = event_sign_up(user=member, event_id=event.pk)
    assert isinstance(sign_up.participant, EventParticipant) and sign_up.waitlist_position is None


def test_a_full_event_puts_members_on_the_waitlist_in_order(full_event):
    members = UserFactory.create_batch(3)
    positions = [event_sign_up(user=m, event_id=full_event.pk).waitlist_position for m in members]
    assert positions == [1, 2, 3]
    assert waiting(full_event) == [m.pk for m in members]
    assert full_event.participants.count() == 2


def test_signing_up_twice_for_the_waitlist_says_the_place(full_event):
    first, second = UserFactory.create_batch(2)
    event_sign_up(user=first, event_id=full_event.pk)
    event_sign_up(user=second, event_id=full_event.pk)
    with pytest.raises(EventAlreadyWaitlisted) as refused:
        event_sign_up(user=second, event_id=full_event.pk)
    assert str(refused.value) == MESSAGE_WAITLIST_POSITION.format(position=2) == "Je staat op de wachtlijst (plek 2)"
    assert EventWaitlistEntry.objects.filter(user=second).count() == 1


def test_a_participant_cannot_join_the_waitlist_too(full_event):
    participant = full_event.participants.first().user
    with pytest.raises(EventAlreadyJoined):
        event_sign_up(user=participant, event_id=full_event.pk)
    assert not full_event.waitlist.exists()


def test_event_join_never_queues(full_event):
    with pytest.raises(EventFull):
        event_join(user=UserFactory(), event_id=full_event.pk)
    assert not full_event.waitlist.exists()


def test_a_cancellation_offers_the_place_to_the_first_on_the_waitlist_and_queues_a_mail(full_event):
    first, second = UserFactory.create_batch(2)
    event_sign_up(user=first, event_id=full_event.pk)
    event_sign_up(user=second, event_id=full_event.pk)
    leaving = full_event.participants.first().user

    assert event_leave(user=leaving, event_id=full_event.pk) == Left.PLACE

    assert not full_event.participants.filter(user=leaving).exists()
    assert full_event.participants.count() == 1
    assert offered(full_event) == [first.pk]
    assert waiting(full_event) == [second.pk]
    mail = Mail.objects.get(kind="waitlist_offer")
    assert (mail.user, mail.event_id, mail.status) == (first, full_event.pk, Mail.Status.QUEUED)


def test_the_offer_mail_arrives_with_its_deadline_and_unsubscribe(smtp_server, full_event):
    member = UserFactory(full_name="Wendy Wachter", email="wendy@example.nl")
    event_sign_up(user=member, event_id=full_event.pk)
    event_leave(user=full_event.participants.first().user, event_id=full_event.pk)

    run_worker()

    message = smtp_server.only()
    assert message["To"] == "wendy@example.nl"
    assert message["Subject"] == "Er is een plek vrij bij Nieuwjaarsduik"
    deadline = timezone.localtime(full_event.waitlist.get(user=member).offer_expires_at)
    expected = f"Er is een plek vrij bij Nieuwjaarsduik: bevestig vóór {formats.date_format(deadline, 'l j F, H:i')}."
    text, html = text_and_html(message)
    assert "Hallo Wendy Wachter" in text and expected in text
    assert expected in html and "Ik kom" in text and "Ik kan niet" in html
    link = f"https://koudwater.example/samen#event-{full_event.pk}"  # its row on the plan list
    assert link in text and f'href="{link}"' in html
    assert message["List-Unsubscribe"].strip().startswith("<https://koudwater.example/mail/afmelden/")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_no_offer_mail_for_a_member_who_turned_event_mails_off(full_event):
    member = UserFactory()
    mail_preference_set(user=member, event_mails=False)
    event_sign_up(user=member, event_id=full_event.pk)
    event_leave(user=full_event.participants.first().user, event_id=full_event.pk)
    assert offered(full_event) == [member.pk]  # the offer stands; the plan list shows it
    assert not Mail.objects.exists()


def test_leaving_the_waitlist_keeps_the_order_of_the_others(full_event):
    members = UserFactory.create_batch(3)
    for member in members:
        event_sign_up(user=member, event_id=full_event.pk)

    assert event_leave(user=members[1], event_id=full_event.pk) == Left.WAITLIST

    assert waiting(full_event) == [members[0].pk, members[2].pk]
    assert event_sign_up(user=UserFactory(), event_id=full_event.pk).waitlist_position == 3
    assert full_event.participants.count() == 2 and not Mail.objects.exists()


def test_leaving_when_neither_is_nothing(full_event):
    assert event_leave(user=UserFactory(), event_id=full_event.pk) is None


def test_raising_the_maximum_offers_the_next_ones_in_order(full_event):
    members = UserFactory.create_batch(4)
    for member in members:
        event_sign_up(user=member, event_id=full_event.pk)

    full_event.max_participants = 4
    offers = event_save(event=full_event)

    assert [entry.user_id for entry in offers] == [members[0].pk, members[1].pk]
    assert full_event.participants.count() == 2
    assert offered(full_event) == [members[0].pk, members[1].pk]
    assert waiting(full_event) == [members[2].pk, members[3].pk]
    assert Mail.objects.filter(kind="waitlist_offer").count() == 2


def test_removing_the_maximum_offers_everyone_a_place(full_event):
    members = UserFactory.create_batch(3)
    for member in members:
        event_sign_up(user=member, event_id=full_event.pk)
    full_event.max_participants = None
    event_save(event=full_event)
    assert offered(full_event) == [m.pk for m in members] and waiting(full_event) == []


def test_a_past_event_offers_nobody(full_event):
    member = UserFactory()
    event_sign_up(user=member, event_id=full_event.pk)
    full_event.event_date = timezone.now() - datetime.timedelta(days=1)
    full_event.max_participants = 10
    assert event_save(event=full_event) == []
    assert waiting(full_event) == [member.pk]


def test_a_place_freed_behind_the_services_back_still_goes_to_the_waitlist_first(full_event):
    """A participant deleted directly (an old admin path): the next sign-up must not jump the queue."""
    first = UserFactory()
    event_sign_up(user=first, event_id=full_event.pk)
    EventParticipant.objects.filter(event=full_event).first().delete()

    newcomer = UserFactory()
    sign_up = event_sign_up(user=newcomer, event_id=full_event.pk)

    assert offered(full_event) == [first.pk]
    assert sign_up.waitlist_position == 2 and waiting(full_event) == [newcomer.pk]
