"""Delivering queued mails (in the worker), retrying failed ones, recovering stuck ones, and the one-click
unsubscribe link."""

import datetime
import logging
import smtplib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..claims import RETRY_DELAYS, claim_owner_alive, claim_token
from ..links import UnsubscribeScope, unsubscribe_payload
from ..messages import build_message
from ..models import InvitationOptOut, Mail, Notice
from ..queueing import notices_enqueue
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
# A failed mail is tried again by the cron command, a few times, not straight away.
MAX_ATTEMPTS = 5
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
    """Queue again the mails a delivery run left behind: claimed ('sending') by a run that is gone (its advisory
    lock free: the worker was killed mid-send) or claimed longer than STUCK_AFTER ago, and mails 'queued' longer
    than STUCK_AFTER whose task died or was lost before it claimed them. A mail claimed as often as its tries
    allow is given up (failed).

    Idempotent and safe beside live workers: a live claim is left alone, every write is guarded by its status,
    and a mail queued twice is claimed once (`_claim`). The mail's `updated_at` moves, so one that merely
    waits behind a long queue is queued again at most once per STUCK_AFTER. Only a mail the mail server took
    just before its worker died can go twice."""
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)
    claims: dict[int | None, datetime.datetime] = {}
    for token, claimed_at in Mail.objects.filter(status=Mail.Status.SENDING).values_list("claim_token", "claimed_at"):
        claims[token] = min(claimed_at or cutoff, claims.get(token, claimed_at or cutoff))
    dead = [
        token
        for token, since in claims.items()
        if token is not None and (since <= cutoff or not claim_owner_alive(token))
    ]
    with transaction.atomic():
        # skip_locked: two recoveries at once split the work instead of both taking every row.
        orphan_ids = list(
            Mail.objects.select_for_update(skip_locked=True)
            .filter(Q(claim_token__in=dead) | Q(claim_token__isnull=True), status=Mail.Status.SENDING)
            .order_by("pk")
            .values_list("pk", flat=True)[:1000]
        )
        released = {"claim_token": None, "claimed_at": None, "updated_at": now}
        Mail.objects.filter(pk__in=orphan_ids, attempts__gte=MAX_ATTEMPTS).update(
            status=Mail.Status.FAILED, last_error="niet bezorgd", body_text="", body_html="", **released
        )
        requeued = Mail.objects.filter(pk__in=orphan_ids, status=Mail.Status.SENDING)
        orphan_ids = list(requeued.values_list("pk", flat=True))
        requeued.update(status=Mail.Status.QUEUED, **released)
        waiting_ids = list(
            Mail.objects.select_for_update(skip_locked=True)
            .filter(status=Mail.Status.QUEUED, updated_at__lte=cutoff)
            .order_by("pk")
            .values_list("pk", flat=True)[:1000]
        )
        Mail.objects.filter(pk__in=waiting_ids).update(updated_at=now)
        mail_ids = sorted(orphan_ids + waiting_ids)
        _enqueue(mail_ids)
    return len(mail_ids)


# Notices per task when recovered ones are queued again.
NOTICES_PER_RECOVERY_TASK = 500


def notices_recover_stuck(*, now: datetime.datetime | None = None) -> int:
    """Queue again the notices a delivery run left behind: claimed ('sending') by a run that is gone (its
    advisory lock free: the worker died or the task failed) or claimed longer than STUCK_AFTER ago, and
    notices due longer than STUCK_AFTER ago that no task took (their task failed before claiming, or was
    lost). Run by the cron command and at the start of every delivery run, so a restarted worker takes on a
    killed one's notices at once. A notice claimed more often than its tries allow is given up (failed).

    Safe beside live runs: a live claim is left alone, every write is guarded by its status (and a notice
    queued twice is claimed once), and a waiting one is queued again at most once per STUCK_AFTER."""
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)
    claims: dict[int | None, datetime.datetime] = {}
    for token, claimed_at in Notice.objects.filter(status=Notice.Status.SENDING).values_list(
        "claim_token", "claimed_at"
    ):
        claims[token] = min(claimed_at or cutoff, claims.get(token, claimed_at or cutoff))
    dead = [
        token for token, since in claims.items() if token is None or since <= cutoff or not claim_owner_alive(token)
    ]
    with transaction.atomic():
        # skip_locked: two recoveries at once split the work instead of both taking every row.
        orphan_ids = list(
            Notice.objects.select_for_update(skip_locked=True)
            .filter(Q(claim_token__in=[t for t in dead if t is not None]) | Q(claim_token__isnull=True))
            .filter(status=Notice.Status.SENDING)
            .order_by("pk")
            .values_list("pk", flat=True)[:5000]
        )
        spent = Notice.objects.filter(pk__in=orphan_ids, attempts__gt=len(RETRY_DELAYS))
        spent.update(status=Notice.Status.FAILED, claim_token=None, claimed_at=None, last_error="niet bezorgd")
        requeued = Notice.objects.filter(pk__in=orphan_ids, status=Notice.Status.SENDING)
        orphan_ids = list(requeued.values_list("pk", flat=True))
        # claimed_at on a queued notice: when it was last queued again (so at most once per STUCK_AFTER).
        requeued.update(status=Notice.Status.QUEUED, claim_token=None, claimed_at=now)
        waiting_ids = list(
            Notice.objects.select_for_update(skip_locked=True)
            .filter(status__in=[Notice.Status.QUEUED, Notice.Status.RETRY], send_after__lte=cutoff)
            .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lte=cutoff))
            .order_by("pk")
            .values_list("pk", flat=True)[:5000]
        )
        Notice.objects.filter(pk__in=waiting_ids).update(claimed_at=now)
        ids = sorted(orphan_ids + waiting_ids)
        notices_enqueue(ids, per_task=NOTICES_PER_RECOVERY_TASK)
    return len(ids)


def _claim(mail_id: int, token: int) -> Mail | None:
    """One short transaction: the mail, if it is still queued and no one else has it, marked 'sending' as ours."""
    now = timezone.now()
    with transaction.atomic():
        # skip_locked: a mail another run is claiming right now is that run's (a mail queued twice).
        mail = (
            Mail.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("user", "invitation__invited_by", "email_address")
            .filter(pk=mail_id, status=Mail.Status.QUEUED)
            .first()
        )
        if mail is None:
            return None  # deleted with its account or invitation, already sent, or opted out
        mail.status = Mail.Status.SENDING
        mail.claim_token, mail.claimed_at, mail.updated_at = token, now, now
        mail.attempts += 1
        mail.save(update_fields=["status", "claim_token", "claimed_at", "updated_at", "attempts"])
    return mail


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
    """One short UPDATE: the outcome, only while the claim is still ours. A mail deleted meanwhile (with its
    account or invitation) has nothing left to record."""
    now = timezone.now()
    values: dict = {
        "status": status,
        "last_error": error[:500],
        "updated_at": now,
        "claim_token": None,
        "claimed_at": None,
    }
    if status == Mail.Status.SENT:
        values["sent_at"] = now
    if status == Mail.Status.SENT or mail.attempts >= MAX_ATTEMPTS:
        # A reset key lives no longer than it must.
        values["body_text"] = values["body_html"] = ""
    mine = Mail.objects.filter(pk=mail.pk, status=Mail.Status.SENDING, claim_token=token)
    return status if mine.update(**values) else "skipped"


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
