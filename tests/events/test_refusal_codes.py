"""Cancelling an event twice says "al afgelast" because the first refusal's code is `cancelled`, not because
its Dutch sentence is a certain text: a copy edit of the refusals changes nothing here."""

import datetime

import pytest
from django.utils import timezone

from apps.events.models import Event
from apps.events.refusals import EventRefusal
from apps.events.services import MESSAGE_ALREADY_CANCELLED, EventError, event_cancel
from tests.factories import EventFactory
from tests.support.refusals import REWORDED, reword_refusals

pytestmark = pytest.mark.django_db


def test_a_second_cancel_is_told_apart_by_the_code_whatever_the_sentence(monkeypatch):
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3))
    event_cancel(event_id=event.pk, reason="Storm op zee")
    reword_refusals(monkeypatch)
    with pytest.raises(EventError) as refused:
        event_cancel(event_id=event.pk, reason="Nog eens")
    assert refused.value.code == EventRefusal.ALREADY_CANCELLED
    assert refused.value.message == REWORDED + MESSAGE_ALREADY_CANCELLED
    assert refused.value.__cause__.code == EventRefusal.CANCELLED
    assert Event.objects.get(pk=event.pk).cancel_reason == "Storm op zee"
