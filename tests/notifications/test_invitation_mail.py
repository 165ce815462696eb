"""Invitation mails through a real SMTP server on loopback, sent by the real worker."""

import datetime
import re

import pytest
from django.core import signing
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.invitations.services import invitation_bulk_create, invitation_create
from apps.notifications.models import Mail
from apps.notifications.services import invitation_mail_resend
from tests.mailbox import run_worker, text_and_html

pytestmark = pytest.mark.django_db


def test_an_invitation_mail_is_queued_not_sent_by_the_request(smtp_server, admin_user):
    invitation = invitation_create(invited_by=admin_user, email="nieuw@example.nl")

    task = DBTaskResult.objects.get()
    assert task.task_path == "apps.notifications.tasks.send_invitation_mails"
    assert task.args_kwargs["kwargs"] == {"invitation_ids": [invitation.pk]}
    assert smtp_server.messages == []  # nothing goes out until the worker runs


def test_the_worker_sends_the_invitation_with_both_bodies_the_link_and_one_click_unsubscribe(smtp_server, admin_user):
    invitation = invitation_create(invited_by=admin_user, email="nieuw@example.nl")

    run_worker()

    message = smtp_server.only()
    assert message["To"] == "nieuw@example.nl"
    assert message["Subject"] == "Je bent uitgenodigd voor de Koud water challenge"
    assert "Koud water challenge" in message["From"]
    link = f"https://koudwater.example/auth?invite={invitation.code}"
    text, html = text_and_html(message)
    assert link in text and f'href="{link}"' in html
    assert invitation.code in text and "Anna Admin nodigt je uit" in text
    assert "Anna Admin nodigt je uit" in html
    unsubscribe = re.fullmatch(r"<(https://koudwater\.example/mail/afmelden/\S+)>", message["List-Unsubscribe"].strip())
    assert unsubscribe, message["List-Unsubscribe"]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.group(1) in text and unsubscribe.group(1) in html
    mail = Mail.objects.get()
    assert mail.status == Mail.Status.SENT and mail.sent_at is not None and mail.attempts == 1


def test_bulk_invitations_each_get_a_mail(smtp_server, admin_user):
    result = invitation_bulk_create(invited_by=admin_user, text="a@example.nl, b@example.nl; c@example.nl")

    run_worker()

    assert sorted(m["To"] for m in smtp_server.messages) == ["a@example.nl", "b@example.nl", "c@example.nl"]
    codes = {i.email: i.code for i in result.created}
    for message in smtp_server.messages:
        assert f"invite={codes[message['To']]}" in text_and_html(message)[0]


def test_a_refusing_server_marks_the_mail_failed_and_a_retry_sends_it(smtp_server, admin_user):
    invitation = invitation_create(invited_by=admin_user, email="nieuw@example.nl")
    smtp_server.refuse = True

    run_worker()

    mail = Mail.objects.get()
    assert mail.status == Mail.Status.FAILED and mail.get_status_display() == "Mislukt"
    assert "451" in mail.last_error and smtp_server.messages == []

    smtp_server.refuse = False
    invitation_mail_resend(invitation_id=invitation.pk)
    run_worker()

    assert smtp_server.only()["To"] == "nieuw@example.nl"
    mail.refresh_from_db()
    assert mail.status == Mail.Status.SENT and mail.attempts == 2


def test_an_unreachable_server_marks_the_mail_failed(settings, smtp_server, admin_user):
    invitation_create(invited_by=admin_user, email="nieuw@example.nl")
    settings.EMAIL_PORT = 1  # nothing listens there: connection refused

    run_worker()

    assert Mail.objects.get().status == Mail.Status.FAILED


def test_unsubscribed_address_gets_no_invitation_mail(client, smtp_server, admin_user):
    invitation_create(invited_by=admin_user, email="nee@example.nl")
    run_worker()
    url = re.search(r"<(\S+)>", smtp_server.only()["List-Unsubscribe"]).group(1)

    # The mail program's one-click POST: no session, no CSRF token (RFC 8058).
    client.handler.enforce_csrf_checks = True
    response = client.post(url.removeprefix("https://koudwater.example"), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200

    # Once the first invitation has expired, an admin invites the address again.
    later = timezone.now() + datetime.timedelta(days=31)
    second = invitation_create(invited_by=admin_user, email="nee@example.nl", now=later)
    run_worker()
    assert len(smtp_server.messages) == 1
    assert Mail.objects.get(invitation=second).get_status_display() == "Afgemeld"


def test_a_forged_unsubscribe_token_is_refused(client):
    token = signing.dumps({"s": "invitations", "e": "x@example.nl"}, salt="iets anders")
    response = client.post(f"/mail/afmelden/{token}", {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 400
    assert "Deze afmeldlink klopt niet" in response.content.decode()
