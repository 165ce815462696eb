"""A mail keeps its event as a plain id (notifications sits below events): the event's mails still go with the
event, and the mail still reads the event when it goes out."""

import pytest

from apps.events.models import Event
from apps.notifications.models import Mail
from apps.notifications.services import member_mail_queue
from tests.factories import EventFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def test_deleting_an_event_deletes_its_mails_and_no_others():
    member = UserFactory()
    gone, kept = EventFactory(title="Ijsduik"), EventFactory(title="Nieuwjaarsduik")
    member_mail_queue(kind="event_reminder", user=member, event_id=gone.pk, dedupe_key="a")
    other = member_mail_queue(kind="event_reminder", user=member, event_id=kept.pk, dedupe_key="b")
    Event.objects.filter(pk=gone.pk).delete()  # as the Django admin deletes, past any service
    assert list(Mail.objects.values_list("pk", flat=True)) == [other.pk]


def test_a_mail_about_an_event_reads_the_event_when_it_goes_out(mailoutbox):
    event = EventFactory(title="Ijsduik")
    member_mail_queue(kind="event_reminder", user=UserFactory(), event_id=event.pk)
    Event.objects.filter(pk=event.pk).update(title="Ijsduik bij de pier")
    run_worker()
    assert [message.subject for message in mailoutbox] == ["Morgen: Ijsduik bij de pier"]
