"""A real SMTP server on loopback (aiosmtpd) and the django-tasks worker, for the mail tests.

`smtp_server` points Django's SMTP backend at a fresh aiosmtpd server and collects what it receives,
parsed as e-mail messages. `inbox.refuse = True` makes it answer 451 to every message, as a mail server
in trouble does. `run_worker()` runs the real `db_worker` command in batch mode: it takes every queued
task from the database, runs it and stops, so a test needs no worker process of its own.
"""

import email
import email.policy
import socket
from dataclasses import dataclass, field
from unittest import mock

import pytest
from aiosmtpd.controller import Controller
from django.core.management import call_command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Inbox:
    messages: list[email.message.EmailMessage] = field(default_factory=list)
    envelopes: list = field(default_factory=list)
    refuse: bool = False

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        if self.refuse:
            return "451 4.3.0 Tijdelijk niet beschikbaar"
        self.envelopes.append(envelope)
        self.messages.append(email.message_from_bytes(envelope.original_content, policy=email.policy.default))
        return "250 OK"

    def only(self) -> email.message.EmailMessage:
        assert len(self.messages) == 1, [m["Subject"] for m in self.messages]
        return self.messages[0]


@pytest.fixture
def smtp_server(settings):
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 10
    settings.SITE_URL = "https://koudwater.example"
    try:
        yield inbox
    finally:
        controller.stop()


def run_worker() -> None:
    """The production worker, once over the queue: every queued task runs, then it stops.

    Between tasks the worker drops database connections that are not in autocommit mode, as a
    long-running process should; inside a test's transaction that would throw the test's data away
    (PostgreSQL), so here that one call is a no-op. Everything else is the real command.
    """
    with mock.patch("django_tasks_db.management.commands.db_worker.close_old_connections"):
        call_command("db_worker", batch=True, startup_delay=False, reload=False, verbosity=0)


def text_and_html(message: email.message.EmailMessage) -> tuple[str, str]:
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    return text, html
