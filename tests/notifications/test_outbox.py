"""The one delivery path of both outboxes (apps/notifications/outbox.py): a run records its outcome only while
its claim is still its own. A claim recovery took back (the run was taken for dead) is the next run's: the late
outcome of the first run writes nothing over it, for mail and notices alike."""

import datetime

import pytest
from django.conf import settings
from django.utils import timezone

from apps.notifications.models import Notice
from apps.notifications.outbox import MAILS, NOTICES, QUEUED, SENDING, SENT
from apps.notifications.services import member_mail_queue
from tests.factories import EventFactory, UserFactory

pytestmark = pytest.mark.django_db


def _mail(user):
    return member_mail_queue(kind="event_reminder", user=user, event_id=EventFactory(title="Ijsduik").pk)


def _notice(user):
    return Notice.objects.create(user=user, kind="event_changed", title="Nieuwe tijd", body="11:00")


@pytest.mark.parametrize(("outbox", "make"), [(MAILS, _mail), (NOTICES, _notice)], ids=["mail", "notice"])
def test_a_claim_taken_back_by_recovery_is_not_written_over_by_its_late_run(outbox, make):
    row = make(UserFactory())
    [claimed] = outbox.claim([row.pk], token=111)
    assert (claimed.status, claimed.claim_token, claimed.attempts) == (SENDING, 111, 1)
    assert outbox.claim([row.pk], token=222) == []  # claimed once

    # The run is taken for dead (its claim older than STUCK_AFTER): its row is queued again.
    later = timezone.now() + datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS + 1)
    assert outbox.recover(now=later) == 1
    assert outbox.record(claimed, 111, SENT) is False  # the first run's outcome comes too late
    row.refresh_from_db()
    assert (row.status, row.claim_token, row.sent_at) == (QUEUED, None, None)

    # The next run's claim is its own, and so is its outcome.
    [again] = outbox.claim([row.pk], token=333)
    assert outbox.record(again, 333, SENT) is True
    row.refresh_from_db()
    assert (row.status, row.attempts, row.claim_token) == (SENT, 2, None) and row.sent_at is not None
