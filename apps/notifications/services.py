"""Mail rules: queue (in the caller's transaction), deliver (in the worker), retry, preferences, unsubscribe.

Queueing writes a `Mail` row and a django-tasks row in the same transaction as the change that
causes the mail, so a rolled-back change sends nothing and a committed one is never forgotten.
"""

import datetime
import logging
import smtplib
from collections.abc import Iterable
from typing import cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.errors import DomainError
from apps.core.page_cache import MEMBER, pages_changed
from apps.invitations.models import Invitation

from .links import UnsubscribeScope, unsubscribe_payload
from .messages import build_message
from .models import InvitationOptOut, Mail, MailPreference
from .tasks import deliver_mails, send_invitation_mails

logger = logging.getLogger(__name__)

MESSAGE_RESENT = "De uitnodiging wordt opnieuw verstuurd."
MESSAGE_NO_INVITATION = "Deze uitnodiging bestaat niet meer."
MESSAGE_NO_EMAIL = "Deze uitnodiging heeft geen e-mailadres."
MESSAGE_NOT_ACTIVE = "Deze uitnodiging is al gebruikt of verlopen."
MESSAGE_OPTED_OUT = "Dit e-mailadres wil geen uitnodigingen meer ontvangen."
MESSAGE_BAD_UNSUBSCRIBE_LINK = "Deze afmeldlink klopt niet. Kopieer de hele link uit de e-mail."

# A failed mail is tried again by the cron command, a few times, not straight away.
MAX_ATTEMPTS = 5
RETRY_AFTER = datetime.timedelta(minutes=10)
# Mails per background task (sent over one SMTP connection): 2,000 bulk invitations are 4 tasks, not 2,000.
MAILS_PER_TASK = 500
# SQLite caps the parameters of one query.
_CHUNK = 500

MEMBER_SCOPES: dict[str, str] = {
    Mail.Kind.WAITLIST_PROMOTION: UnsubscribeScope.EVENT_MAILS,
    Mail.Kind.EVENT_REMINDER: UnsubscribeScope.EVENT_MAILS,
    Mail.Kind.DIP_NUDGE: UnsubscribeScope.DIP_NUDGE,
}


class MailError(DomainError):
    """A refused mail action; the message is Dutch."""

    status = 409


def _enqueue(mail_ids: list[int]) -> None:
    for start in range(0, len(mail_ids), MAILS_PER_TASK):
        deliver_mails.enqueue(mail_ids=mail_ids[start : start + MAILS_PER_TASK])


def mail_preference_for(user) -> MailPreference:
    """The member's choices; the defaults (an unsaved row) when they never changed anything."""
    preference = MailPreference.objects.filter(user=user).first()
    return preference or MailPreference(user=user)


def mail_preference_set(*, user, event_mails: bool | None = None, dip_nudge: bool | None = None) -> MailPreference:
    with transaction.atomic():
        preference, _ = MailPreference.objects.select_for_update().get_or_create(user=user)
        if event_mails is not None:
            preference.event_mails = event_mails
        if dip_nudge is not None:
            preference.dip_nudge = dip_nudge
        preference.updated_at = timezone.now()
        preference.save()
        pages_changed(MEMBER, user_ids=[user.pk])  # the choices shown on /events and /account
    return preference


def _member_wants(user, kind: str) -> bool:
    if kind not in MEMBER_SCOPES:
        return True  # an answer to the member's own request (their export): no choice to respect
    preference = mail_preference_for(user)
    if MEMBER_SCOPES[kind] == UnsubscribeScope.DIP_NUDGE:
        return preference.dip_nudge
    return preference.event_mails


def member_mail_queue(*, kind: str, user, event_id: int | None = None, dedupe_key: str | None = None) -> Mail | None:
    """Queue a mail to a member, if they want this kind. With a `dedupe_key`, a second call for the same
    key (a second cron run, or two at once) queues nothing: the unique key decides, in the database."""
    if not user.is_active or not _member_wants(user, kind):
        return None
    now = timezone.now()
    with transaction.atomic():
        try:
            with transaction.atomic():
                mail = Mail.objects.create(
                    kind=kind,
                    to_email=user.email,
                    user=user,
                    event_id=event_id,
                    dedupe_key=dedupe_key,
                    created_at=now,
                    updated_at=now,
                )
        except IntegrityError:
            return None
        _enqueue([mail.pk])
    return mail


def account_mail_queue(*, kind: str, user, to_email: str, email_address=None) -> Mail:
    """Queue a mail about the member's own account (a link to confirm a new address, the notice to the old
    one). Sent whatever their mail choices: it answers what was just done with their account."""
    now = timezone.now()
    with transaction.atomic():
        mail = Mail.objects.create(
            kind=kind,
            to_email=to_email,
            user=user,
            email_address=email_address,
            created_at=now,
            updated_at=now,
        )
        _enqueue([mail.pk])
    return mail


def allauth_mail_queue(*, message: EmailMessage) -> Mail:
    """Queue a mail allauth rendered (a password reset) instead of sending it in the request: the request
    then costs the same whether the address has an account or not, and a mail server that is down costs
    a retry later, not a 500. Called through apps.accounts.mail (see NotificationsConfig.ready)."""
    html = next((content for content, mimetype in getattr(message, "alternatives", []) if mimetype == "text/html"), "")
    to_email = message.to[0]
    now = timezone.now()
    with transaction.atomic():
        mail = Mail.objects.create(
            kind=Mail.Kind.ACCOUNT,
            to_email=to_email,
            user=get_user_model().objects.filter(email__iexact=to_email).first(),
            subject=str(message.subject)[:255],
            body_text=str(message.body),
            body_html=html,
            created_at=now,
            updated_at=now,
        )
        _enqueue([mail.pk])
    return mail


def _opted_out(emails: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(emails), _CHUNK):
        found.update(
            InvitationOptOut.objects.filter(email__in=emails[start : start + _CHUNK]).values_list("email", flat=True)
        )
    return found


def invitation_mails_queue(*, invitations: Iterable[Invitation]) -> int:
    """Queue the mail of each invitation that has an address: one background task per MAILS_PER_TASK.

    Only the task row is written here, so a bulk invitation of 2,000 addresses stays a quick request;
    the worker writes each invitation's `Mail` row (its 'Verstuurd'/'Mislukt' record) as it sends.
    """
    invitations = list(invitations)
    for invitation in invitations:
        # A new invitation has no mail row yet (the worker writes it): tell the ORM, so that showing
        # the new rows' mail status costs no query per invitation.
        Invitation.mail.related.set_cached_value(invitation, None)
    invitation_ids = [invitation.pk for invitation in invitations if invitation.email]
    for start in range(0, len(invitation_ids), MAILS_PER_TASK):
        send_invitation_mails.enqueue(invitation_ids=invitation_ids[start : start + MAILS_PER_TASK])
    return len(invitation_ids)


def invitation_mails_prepare(*, invitation_ids: list[int]) -> list[int]:
    """In the worker: the `Mail` rows of these invitations, marked 'Afgemeld' for an address that opted out.
    Returns the ids of the mails to send. An invitation deleted or used in the meantime gets none."""
    invitations = list(
        Invitation.objects.filter(pk__in=invitation_ids, used_at__isnull=True, email__isnull=False).exclude(email="")
    )
    # The query leaves out invitations without an address (the stubs cannot know): email is text.
    opted_out = _opted_out([cast(str, invitation.email) for invitation in invitations])
    now = timezone.now()
    with transaction.atomic():
        # ignore_conflicts: an invitation that already has its mail row (sent again by hand) keeps it.
        Mail.objects.bulk_create(
            [
                Mail(
                    kind=Mail.Kind.INVITATION,
                    to_email=cast(str, invitation.email),
                    invitation=invitation,
                    status=Mail.Status.SUPPRESSED if invitation.email in opted_out else Mail.Status.QUEUED,
                    created_at=now,
                    updated_at=now,
                )
                for invitation in invitations
            ],
            batch_size=_CHUNK,
            ignore_conflicts=True,
        )
    return list(
        Mail.objects.filter(invitation_id__in=[i.pk for i in invitations], status=Mail.Status.QUEUED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def invitation_mail_resend(*, invitation_id: int) -> Mail:
    """The admin's 'Opnieuw versturen': the invitation's one mail row goes back in the queue."""
    now = timezone.now()
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(pk=invitation_id).first()
        if invitation is None:
            raise MailError(MESSAGE_NO_INVITATION)
        if not invitation.email:
            raise MailError(MESSAGE_NO_EMAIL)
        if invitation.status_at(now) != Invitation.Status.ACTIVE:
            raise MailError(MESSAGE_NOT_ACTIVE)
        if _opted_out([invitation.email]):
            raise MailError(MESSAGE_OPTED_OUT)
        mail = Mail.objects.select_for_update().filter(invitation=invitation).first()
        if mail is None:
            mail = Mail(kind=Mail.Kind.INVITATION, invitation=invitation, created_at=now)
        elif mail.status == Mail.Status.QUEUED:
            return mail  # already on its way: a double click sends one mail
        mail.to_email = invitation.email
        mail.status = Mail.Status.QUEUED
        mail.updated_at = now
        mail.save()
        _enqueue([mail.pk])
    return mail


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
    """Queue again the mails left 'queued' by a worker that died (kill -9, or SIGKILL after a SIGTERM):
    its transaction was rolled back, so the mail never left, but no task will look at it again.

    Idempotent and safe beside live workers: a mail being sent right now is row-locked by its worker and
    skipped here, and a mail queued twice is sent once (`_deliver_one` checks its status under the lock).
    The mail's `updated_at` moves, so one that merely waits behind a long queue is queued again at most
    once per STUCK_AFTER."""
    now = now or timezone.now()
    stuck_after = datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)
    with transaction.atomic():
        mail_ids = list(
            Mail.objects.select_for_update(skip_locked=True)
            .filter(status=Mail.Status.QUEUED, updated_at__lte=now - stuck_after)
            .order_by("pk")
            .values_list("pk", flat=True)[:1000]
        )
        Mail.objects.filter(pk__in=mail_ids).update(updated_at=now)
        _enqueue(mail_ids)
    return len(mail_ids)


def _deliver_one(mail_id: int, connection) -> str:
    with transaction.atomic():
        # The row lock makes a retry that overlaps a slow send wait, and then see 'sent' and stop.
        mail = (
            Mail.objects.select_for_update(of=("self",))
            .select_related("user", "invitation__invited_by", "email_address")
            .filter(pk=mail_id)
            .first()
        )
        if mail is None or mail.status != Mail.Status.QUEUED:
            return "skipped"  # deleted with its account or invitation, already sent, or opted out
        mail.attempts += 1
        mail.updated_at = timezone.now()
        try:
            message = build_message(mail, connection=connection)
        except Exception as error:
            # A mail that cannot be built must not take the rest of its batch down with it.
            logger.exception("mail %s could not be built", mail.pk)
            mail.status = Mail.Status.FAILED
            mail.last_error = f"{type(error).__name__}: {error}"[:500]
        else:
            try:
                message.send()
            except (smtplib.SMTPException, OSError) as error:
                # OSError: refused, unreachable or timed out. The mail stays, marked failed, for a retry.
                logger.warning("mail %s to %s failed: %s", mail.pk, mail.to_email, error)
                mail.status = Mail.Status.FAILED
                mail.last_error = str(error)[:500]
                connection.close()
            else:
                mail.status = Mail.Status.SENT
                mail.sent_at = mail.updated_at
                mail.last_error = ""
        if mail.status == Mail.Status.SENT or mail.attempts >= MAX_ATTEMPTS:
            # A reset key lives no longer than it must.
            mail.body_text = mail.body_html = ""
        mail.save(update_fields=["status", "attempts", "updated_at", "sent_at", "last_error", "body_text", "body_html"])
        return mail.status


def mails_deliver(*, mail_ids: list[int]) -> dict[str, int]:
    """Send the given mails over one SMTP connection; each outcome is saved on its row. Runs in the worker."""
    outcome: dict[str, int] = {}
    connection = get_connection(fail_silently=False)
    try:
        for mail_id in mail_ids:
            status = _deliver_one(mail_id, connection)
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
    if scope in (UnsubscribeScope.EVENT_MAILS, UnsubscribeScope.DIP_NUDGE) and isinstance(payload.get("u"), int):
        user = get_user_model().objects.filter(pk=payload["u"]).first()
        if user is not None:  # an account deleted since gets no mail anyway
            if scope == UnsubscribeScope.EVENT_MAILS:
                mail_preference_set(user=user, event_mails=False)
            else:
                mail_preference_set(user=user, dip_nudge=False)
        return scope
    raise MailError(MESSAGE_BAD_UNSUBSCRIBE_LINK)
