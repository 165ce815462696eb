"""Claim, send, record for mail: a mail is claimed in one short transaction ('Wordt verstuurd', a claim token),
sent with no row lock or transaction held, and its outcome written only while the claim is still the run's. A
slow mail server then holds up nothing that locks the mail: an account deleted, an invitation sent again, the
scheduler's recovery. PostgreSQL, real threads, a real SMTP server on loopback whose gate holds the message, so
each test waits for a state, never for a time."""

import asyncio
import email
import email.policy
import threading
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.accounts.removal import user_delete
from apps.notifications.claims import claim_token
from apps.notifications.models import Mail
from apps.notifications.services import (
    invitation_mail_resend,
    invitation_mails_prepare,
    mails_deliver,
    mails_recover_stuck,
    mails_retry_failed,
    member_mail_queue,
)
from apps.notifications.services.delivery import MAX_ATTEMPTS
from tests.concurrency import in_thread, requires_postgresql
from tests.factories import AdminFactory, EventFactory, InvitationFactory
from tests.mailbox import _free_port, run_worker

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]
DELIVER = "apps.notifications.tasks.deliver_mails"


@dataclass
class GatedInbox:
    """An SMTP server that holds each message's DATA until `gate` is set, then takes it."""

    gate: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    messages: list = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        self.arrived.set()
        await asyncio.get_running_loop().run_in_executor(None, self.gate.wait, 60)
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=email.policy.default))
        return "250 OK"


@pytest.fixture
def inbox(settings):
    inbox = GatedInbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", controller.port, False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 60
    settings.SITE_URL = "https://koudwater.example"
    try:
        yield inbox
    finally:
        inbox.gate.set()
        controller.stop()


def _reminder(member) -> Mail:
    mail = member_mail_queue(kind="event_reminder", user=member, event_id=EventFactory(title="Ijsduik").pk)
    assert mail is not None
    DBTaskResult.objects.all().delete()  # the test runs the delivery itself
    return mail


def _deliver_stalled(inbox: GatedInbox, mail_ids: list[int]):
    """Start delivering in a thread of its own and wait until the mail server holds the message."""
    inbox.gate.clear()
    join = in_thread(lambda: mails_deliver(mail_ids=mail_ids))
    assert inbox.arrived.wait(30), join(30)
    return join


def test_no_row_lock_is_held_while_the_mail_server_stalls_and_a_live_sender_is_left_alone(inbox, member):
    requires_postgresql()
    mail = _reminder(member)
    join = _deliver_stalled(inbox, [mail.pk])
    try:
        # The mail is on its way: its row is claimed, not locked (NOWAIT would raise).
        with transaction.atomic():
            sending = Mail.objects.select_for_update(nowait=True).get(pk=mail.pk)
        assert sending.status == Mail.Status.SENDING and sending.attempts == 1
        assert sending.claim_token is not None and sending.claimed_at is not None
        # Its sender is alive: recovery leaves it alone and queues nothing.
        assert mails_recover_stuck(now=timezone.now() + timezone.timedelta(seconds=60)) == 0
        assert not DBTaskResult.objects.exists()
    finally:
        inbox.gate.set()
    assert join(60) == {"sent": 1}
    mail.refresh_from_db()
    assert (mail.status, mail.attempts, mail.claim_token, mail.claimed_at) == (Mail.Status.SENT, 1, None, None)
    assert mail.sent_at is not None and len(inbox.messages) == 1


def test_an_account_deleted_during_its_send_is_not_waited_for_and_its_mail_not_written_back(inbox, member):
    requires_postgresql()
    mail = _reminder(member)
    admin = AdminFactory()
    join = _deliver_stalled(inbox, [mail.pk])
    try:
        # The deletion takes the member's mails with it at once: nothing waits behind the mail server.
        assert in_thread(lambda: user_delete(actor=admin, user_id=member.pk))(15) is None
        assert not Mail.objects.filter(pk=mail.pk).exists()
    finally:
        inbox.gate.set()
    assert join(60) == {"skipped": 1}  # sent, but no row left to record it on
    assert not Mail.objects.filter(pk=mail.pk).exists()
    assert len(inbox.messages) == 1


def test_an_invitation_sent_again_while_its_mail_goes_out_is_not_sent_twice(inbox):
    requires_postgresql()
    invitation = InvitationFactory(email="nieuw@example.nl", invited_by=AdminFactory())
    [mail_id] = invitation_mails_prepare(invitation_ids=[invitation.pk])
    join = _deliver_stalled(inbox, [mail_id])
    try:
        # The admin's second click lands while the mail server holds the first: on its way, nothing queued.
        resent = in_thread(lambda: invitation_mail_resend(invitation_id=invitation.pk))(15)
        assert isinstance(resent, Mail) and resent.status == Mail.Status.SENDING
        assert not DBTaskResult.objects.exists()
    finally:
        inbox.gate.set()
    assert join(60) == {"sent": 1}
    run_worker()
    assert len(inbox.messages) == 1 and inbox.messages[0]["To"] == "nieuw@example.nl"
    assert Mail.objects.get(pk=mail_id).status == Mail.Status.SENT


def test_a_mail_whose_sender_died_is_queued_again_at_once_and_sent_once(inbox, member):
    requires_postgresql()
    mail = _reminder(member)
    with claim_token() as token:  # a run that claimed the mail, then died before its outcome was written
        Mail.objects.filter(pk=mail.pk).update(
            status=Mail.Status.SENDING, claim_token=token, claimed_at=timezone.now(), attempts=1
        )
        # Held by a live session of its own (a worker busy sending): left alone.
        assert in_thread(lambda: mails_recover_stuck())(15) == 0
    assert mails_recover_stuck() == 1
    assert mails_recover_stuck() == 0  # idempotent
    mail.refresh_from_db()
    assert (mail.status, mail.claim_token, mail.claimed_at) == (Mail.Status.QUEUED, None, None)
    assert DBTaskResult.objects.get().task_path == DELIVER

    inbox.gate.set()
    run_worker()
    mail.refresh_from_db()
    assert (mail.status, mail.attempts) == (Mail.Status.SENT, 2)
    assert len(inbox.messages) == 1 and inbox.messages[0]["Subject"] == "Morgen: Ijsduik"


def test_a_mail_claimed_as_often_as_its_tries_allow_is_given_up(member):
    requires_postgresql()
    mail = _reminder(member)
    Mail.objects.filter(pk=mail.pk).update(
        status=Mail.Status.SENDING, claim_token=1, claimed_at=timezone.now(), attempts=MAX_ATTEMPTS, body_text="x"
    )
    assert mails_recover_stuck() == 0
    mail.refresh_from_db()
    assert (mail.status, mail.claim_token, mail.last_error, mail.body_text) == (
        Mail.Status.FAILED,
        None,
        "niet bezorgd",
        "",
    )
    assert not DBTaskResult.objects.exists()


def test_a_refused_mail_is_failed_released_and_sent_by_the_retry(inbox, member, settings):
    requires_postgresql()
    mail = _reminder(member)
    port = settings.EMAIL_PORT
    settings.EMAIL_PORT = _free_port()  # nothing listens: refused
    assert mails_deliver(mail_ids=[mail.pk]) == {"failed": 1}
    mail.refresh_from_db()
    assert (mail.status, mail.attempts, mail.claim_token, mail.claimed_at) == (Mail.Status.FAILED, 1, None, None)

    settings.EMAIL_PORT = port
    inbox.gate.set()
    assert mails_retry_failed(now=timezone.now() + timezone.timedelta(minutes=11)) == 1
    run_worker()
    mail.refresh_from_db()
    assert (mail.status, mail.attempts) == (Mail.Status.SENT, 2)
    assert len(inbox.messages) == 1
