"""The mail queue loses nothing (issue 22 §5): a worker killed mid-send, allauth's reset mail, a CR/LF in a title."""

import asyncio
import email
import email.policy
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.notifications.models import Mail
from apps.notifications.services import member_mail_queue
from apps.reminders.scheduled import scheduled_mails_send
from tests.concurrency import requires_postgresql
from tests.factories import EventFactory
from tests.mailbox import _free_port, run_worker, smtp_server  # noqa: F401 - smtp_server is a fixture

# --- a CR/LF in an event title -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_line_break_in_an_event_title_is_cleaned_from_the_subject(smtp_server, member):  # noqa: F811
    event = EventFactory(title="Nieuwjaarsduik\r\nBcc: indringer@example.nl\u2028extra")
    mail = member_mail_queue(kind="event_reminder", user=member, event_id=event.pk)
    run_worker()
    message = smtp_server.only()
    assert message["Subject"] == "Morgen: Nieuwjaarsduik Bcc: indringer@example.nl extra"
    assert message["Bcc"] is None
    assert [envelope.rcpt_tos for envelope in smtp_server.envelopes] == [[member.email]]
    mail.refresh_from_db()
    assert mail.status == Mail.Status.SENT


# --- the password reset goes through the queue ---------------------------------------------------------


def _closed_port() -> int:
    return _free_port()  # nothing listens there: a mail server that is down


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["marit@example.nl", "niemand@example.nl"])
def test_a_reset_request_opens_no_smtp_connection_and_survives_smtp_down(client, member, settings, address):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", _closed_port(), False
    # Known or unknown, the request only writes (at most) a row: an SMTP connection would fail here.
    response = client.post("/auth/wachtwoord-vergeten", {"email": address})
    assert response.status_code == 302 and response["Location"] == "/auth/wachtwoord-vergeten/verstuurd"
    queued = list(Mail.objects.filter(kind="account").values_list("to_email", "status"))
    assert queued == ([("marit@example.nl", "queued")] if address == member.email else [])


@pytest.mark.django_db
def test_a_reset_mail_waits_out_a_mail_server_that_is_down(client, member, smtp_server):  # noqa: F811
    port = settings.EMAIL_PORT
    settings.EMAIL_PORT = _closed_port()
    client.post("/auth/wachtwoord-vergeten", {"email": member.email})
    assert smtp_server.messages == []
    run_worker()  # the server is down: the mail is marked failed, kept for a retry
    mail = Mail.objects.get(kind="account")
    assert mail.status == Mail.Status.FAILED and mail.user == member and "wachtwoord-herstellen" in mail.body_text

    settings.EMAIL_PORT = port
    scheduled_mails_send(now=timezone.now() + timezone.timedelta(minutes=11))
    run_worker()
    message = smtp_server.only()
    assert message["To"] == member.email and message["Subject"] == "Koud water challenge: Nieuw wachtwoord kiezen"
    assert message["List-Unsubscribe"] is None
    assert "/auth/wachtwoord-herstellen/" in message.get_body(preferencelist=("plain",)).get_content()
    mail.refresh_from_db()
    assert mail.status == Mail.Status.SENT and mail.body_text == "" and mail.body_html == ""  # the key is gone


# --- a worker killed mid-send ------------------------------------------------------------------------


@dataclass
class StallingInbox:
    """An SMTP server that, while `stall` is set, takes the message's DATA and never answers."""

    stall: bool = True
    sending: threading.Event = field(default_factory=threading.Event)
    messages: list = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        if self.stall:
            self.sending.set()
            await asyncio.sleep(120)
            return "451 4.3.0 Te laat"  # never reached in the test: the client is gone long before
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=email.policy.default))
        return "250 OK"


def _worker(port: int, *args: str) -> subprocess.Popen:
    """The production worker (`manage.py db_worker`) in its own process, on the test database."""
    db = connection.settings_dict
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_CONN_MAX_AGE": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_USE_TLS": "false",
        "EMAIL_TIMEOUT": "60",
        "SITE_URL": "https://koudwater.example",
    }
    command = [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1", *args]
    return subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(check, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_send_loses_no_mail_and_recovery_sends_it_once(member):
    requires_postgresql()
    inbox = StallingInbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        mail = member_mail_queue(kind="event_reminder", user=member, event_id=EventFactory(title="Ijsduik").pk)
        worker = _worker(controller.port)
        try:
            assert inbox.sending.wait(60), worker.stderr.read1().decode() if worker.poll() is not None else ""
        finally:
            worker.kill()  # SIGKILL in the middle of the SMTP conversation
            worker.wait(30)

        # What the dead worker left: the mail claimed under a token nobody holds now, its task 'running'.
        mail.refresh_from_db()
        assert (mail.status, mail.attempts) == (Mail.Status.SENDING, 1) and mail.claim_token is not None
        assert DBTaskResult.objects.get().status == "RUNNING"

        inbox.stall = False
        # The mail at once (its sender is gone); the task not yet: a worker may still be busy with it.
        assert scheduled_mails_send(now=timezone.now()).recovered == 1
        assert scheduled_mails_send(now=timezone.now()).recovered == 0  # idempotent
        later = timezone.now() + timezone.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS + 1)
        run = scheduled_mails_send(now=later)
        assert run.recovered == 2  # the task put back, and the mail, still waiting, queued once more
        assert scheduled_mails_send(now=later).recovered == 0  # idempotent

        # Two workers at once over the recovered queue (three tasks for the one mail): sent exactly once.
        workers = [_worker(controller.port, "--batch") for _ in range(2)]
        for each in workers:
            assert each.wait(120) == 0, each.stderr.read().decode()
        mail.refresh_from_db()
        assert (mail.status, mail.attempts) == (Mail.Status.SENT, 2)  # the killed claim, and the one that sent
        assert len(inbox.messages) == 1 and inbox.messages[0]["Subject"] == "Morgen: Ijsduik"
        assert not DBTaskResult.objects.exclude(status="SUCCESSFUL").exists()
    finally:
        controller.stop()
