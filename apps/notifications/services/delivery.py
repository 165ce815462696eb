"""Delivering queued mails (in the worker), retrying failed ones, recovering stuck ones, and the one-click
unsubscribe link."""

import datetime
import logging
import smtplib

from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.db import transaction
from django.utils import timezone

from ..claims import claim_token
from ..links import UnsubscribeScope, unsubscribe_payload
from ..messages import build_message
from ..models import InvitationOptOut, Mail
from ..outbox import MAILS, MAX_ATTEMPTS, NOTICES
from ..refusals import NotificationRefusal
from ..registry import KINDS
from .mail_queue import (
    MailError,
    _enqueue,
    mail_preference_set,
    notice_choice_off,
)

logger = logging.getLogger(__name__)

MESSAGE_BAD_UNSUBSCRIBE_LINK = "Deze afmeldlink klopt niet. Kopieer de hele link uit de e-mail."
# A failed mail is tried again by the cron command, at most MAX_ATTEMPTS times in all, not straight away.
RETRY_AFTER = datetime.timedelta(minutes=10)


def mails_retry_failed(*, now: datetime.datetime | None = None) -> int:
    """Put failed mails back in the queue, at most MAX_ATTEMPTS tries, RETRY_AFTER apart."""
    now = now or timezone.now()
    with transaction.atomic():
        # skip_locked: two cron runs at once split the work instead of both taking every row.
        mail_ids = list(
            Mail.objects.select_for_update(skip_locked=True)
            .filter(status=Mail.Status.FAILED, attempts__lt=MAX_ATTEMPTS, updated_at__lte=now - RETRY_AFTER)
            .order_by("pk")
            .values_list("pk", flat=True)[:1000]
        )
        Mail.objects.filter(pk__in=mail_ids).update(status=Mail.Status.QUEUED, updated_at=now)
        _enqueue(mail_ids)
    return len(mail_ids)


def mails_recover_stuck(*, now: datetime.datetime | None = None) -> int:
    """Queue again the mails delivery runs left behind (a dead run's claims, mails no task took); the one
    recovery of both outboxes (apps/notifications/outbox.py). Run by the cron command."""
    return MAILS.recover(now=now)


def notices_recover_stuck(*, now: datetime.datetime | None = None) -> int:
    """Queue again the notices delivery runs left behind, as `mails_recover_stuck` does for mails. Run by the
    cron command, by a claim's check-up and at the start of every delivery run, so a restarted worker takes on
    a killed one's notices at once."""
    return NOTICES.recover(now=now)


def _claim(mail_id: int, token: int) -> Mail | None:
    """The mail, if it is still queued and no one else has it, claimed as ours (outbox.py)."""
    return next(iter(MAILS.claim([mail_id], token)), None)


def _send(mail: Mail, connection) -> tuple[str, str]:
    """Build and send the mail, in no transaction. Returns its status and the error, if any."""
    try:
        message = build_message(mail, connection=connection)
    except Exception as error:
        # A mail that cannot be built must not take the rest of its batch down with it.
        logger.exception("mail %s could not be built", mail.pk)
        return Mail.Status.FAILED, f"{type(error).__name__}: {error}"
    try:
        message.send()
    except (smtplib.SMTPException, OSError) as error:
        # OSError: refused, unreachable or timed out. The mail stays, marked failed, for a retry.
        logger.warning("mail %s to %s failed: %s", mail.pk, mail.to_email, error)
        connection.close()
        return Mail.Status.FAILED, str(error)
    return Mail.Status.SENT, ""


def _record(mail: Mail, token: int, status: str, error: str) -> str:
    """The outcome, only while the claim is still ours. A mail deleted meanwhile (with its account or
    invitation) has nothing left to record."""
    values: dict = {"last_error": error[:500]}
    if status == Mail.Status.SENT or mail.attempts >= MAX_ATTEMPTS:
        # A reset key lives no longer than it must.
        values |= MAILS.forget
    return status if MAILS.record(mail, token, status, **values) else "skipped"


def mails_deliver(*, mail_ids: list[int]) -> dict[str, int]:
    """Send the given mails over one SMTP connection. Each is claimed, sent with no row lock or transaction
    held (the mail server may take EMAIL_TIMEOUT per step), and its outcome recorded on its row. Runs in the
    worker."""
    outcome: dict[str, int] = {}
    connection = get_connection(fail_silently=False)
    try:
        with claim_token() as token:
            for mail_id in mail_ids:
                mail = _claim(mail_id, token)
                status = "skipped" if mail is None else _record(mail, token, *_send(mail, connection))
                outcome[status] = outcome.get(status, 0) + 1
    finally:
        connection.close()
    return outcome


def mail_unsubscribe(*, token: str) -> str:
    """Apply a one-click unsubscribe link. Returns the scope it turned off; raises MailError for a bad link."""
    payload = unsubscribe_payload(token) or {}
    scope = payload.get("s")
    if scope == UnsubscribeScope.INVITATIONS and isinstance(payload.get("e"), str):
        with transaction.atomic():
            InvitationOptOut.objects.get_or_create(email=payload["e"].strip().lower())
        return scope
    member_scopes = (UnsubscribeScope.EVENT_MAILS, UnsubscribeScope.DIP_NUDGE, UnsubscribeScope.CLUB_NOTICES)
    if scope in member_scopes and isinstance(payload.get("u"), int):
        user = get_user_model().objects.filter(pk=payload["u"]).first()
        if user is not None:  # an account deleted since gets no mail anyway
            if scope == UnsubscribeScope.EVENT_MAILS:
                mail_preference_set(user=user, event_mails=False)
            elif scope == UnsubscribeScope.CLUB_NOTICES:
                mail_preference_set(user=user, club_notices=False)
            else:
                mail_preference_set(user=user, dip_nudge=False)
        return scope
    if isinstance(scope, str) and scope.startswith(UnsubscribeScope.KIND) and isinstance(payload.get("u"), int):
        return _kind_unsubscribe(scope=scope, user_id=payload["u"])
    raise MailError(MESSAGE_BAD_UNSUBSCRIBE_LINK, code=NotificationRefusal.BAD_UNSUBSCRIBE_LINK)


def _kind_unsubscribe(*, scope: str, user_id: int) -> str:
    """A kind without an old mail choice (apps.notifications.registry): its choice on /account becomes Uit."""
    kind = KINDS.get(scope.removeprefix(UnsubscribeScope.KIND))
    if kind is None or not kind.chosen:
        raise MailError(MESSAGE_BAD_UNSUBSCRIBE_LINK, code=NotificationRefusal.BAD_UNSUBSCRIBE_LINK)
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is not None:
        notice_choice_off(user=user, kind=kind.name)
    return scope
