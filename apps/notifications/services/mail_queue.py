"""Queueing mails (in the caller's transaction): member, guest, account and invitation mails, and the member's
mail preferences."""

from collections.abc import Iterable
from typing import cast

from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.errors import DomainError
from apps.core.page_cache import MEMBER, pages_changed
from apps.invitations.models import Invitation

from ..kinds import ACCOUNT, INVITATION
from ..models import InvitationOptOut, Mail, MailPreference, NoticePreference

# MAILS_PER_TASK, mails_enqueue and rows_create_once live in queueing (below notices.py, which uses them too).
from ..queueing import MAILS_PER_TASK as MAILS_PER_TASK
from ..queueing import invitation_mails_enqueue, mails_enqueue, rows_create_once
from ..refusals import NotificationRefusal
from ..registry import OFF, flag_kinds, mail_kind_of

MESSAGE_RESENT = "De uitnodiging wordt opnieuw verstuurd."
MESSAGE_NO_INVITATION = "Deze uitnodiging bestaat niet meer."
MESSAGE_NO_EMAIL = "Deze uitnodiging heeft geen e-mailadres."
MESSAGE_NOT_ACTIVE = "Deze uitnodiging is al gebruikt of verlopen."
MESSAGE_OPTED_OUT = "Dit e-mailadres wil geen uitnodigingen meer ontvangen."
# SQLite caps the parameters of one query.
_CHUNK = 500


class MailError(DomainError):
    """A refused mail action; the message is Dutch."""

    status = 409


_enqueue = mails_enqueue


def mail_preference_for(user) -> MailPreference:
    """The member's choices; the defaults (an unsaved row) when they never changed anything."""
    preference = MailPreference.objects.filter(user=user).first()
    return preference or MailPreference(user=user)


def mail_preference_set(
    *, user, event_mails: bool | None = None, dip_nudge: bool | None = None, club_notices: bool | None = None
) -> MailPreference:
    with transaction.atomic():
        preference, _ = MailPreference.objects.select_for_update().get_or_create(user=user)
        before = {
            "event_mails": preference.event_mails,
            "dip_nudge": preference.dip_nudge,
            "club_notices": preference.club_notices,
        }
        if event_mails is not None:
            preference.event_mails = event_mails
        if dip_nudge is not None:
            preference.dip_nudge = dip_nudge
        if club_notices is not None:
            preference.club_notices = club_notices
        preference.updated_at = timezone.now()
        preference.save()
        # The old mail choices govern their notice kinds again (the kinds' unsubscribe scope): off here
        # (an unsubscribe link) is Uit there, on is the kind's default.
        asked = (("event_mails", event_mails), ("dip_nudge", dip_nudge), ("club_notices", club_notices))
        changed = [flag for flag, value in asked if value is not None and value != before[flag]]
        kinds = [kind for flag in changed for kind in flag_kinds(flag)]
        NoticePreference.objects.filter(user=user, kind__in=kinds).delete()
        pages_changed(MEMBER, user_ids=[user.pk])  # the choices shown on /events and /account
    return preference


def notice_choice_off(*, user, kind: str) -> None:
    """A kind's choice on /account becomes Uit (its mail's one-click unsubscribe, for a kind without an old mail
    choice)."""
    now = timezone.now()
    with transaction.atomic():
        NoticePreference.objects.update_or_create(user=user, kind=kind, defaults={"channel": OFF, "updated_at": now})
        pages_changed(MEMBER, user_ids=[user.pk])


def _member_wants(user, kind: str) -> bool:
    flag = mail_kind_of(kind).mail_flag
    if not flag:
        return True  # an answer to the member's own request (their export): no choice to respect
    return getattr(mail_preference_for(user), flag)


def member_mail_queue(
    *, kind: str, user, event_id: int | None = None, dedupe_key: str | None = None, chosen: bool = False
) -> Mail | None:
    """Queue a mail to a member, if they want this kind. With a `dedupe_key`, a second call for the same
    key (a second cron run, or two at once) queues nothing: the unique key decides, in the database.
    `chosen`: the member's notice choice already said mail (apps.notifications.notices)."""
    if not user.is_active or (not chosen and not _member_wants(user, kind)):
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


def guest_mails_queue(*, kind: str, event_id: int, guests: list[tuple[int, str, str]]) -> list[Mail]:
    """Queue a mail to each of an event's guests (`(guest id, address, dedupe key)`), about a change of their
    event: a key told before queues nothing again. A few queries for any number of guests."""
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        mails = rows_create_once(
            Mail,
            [
                Mail(
                    kind=kind,
                    to_email=email,
                    event_id=event_id,
                    guest_id=guest_id,
                    dedupe_key=key,
                    created_at=now,
                    updated_at=now,
                )
                for guest_id, email, key in guests
            ],
        )
        mails_enqueue([mail.pk for mail in mails])
    return mails


def guest_mail_queue(
    *, kind: str, to_email: str, event_id: int, guest_id: int, dedupe_key: str | None = None
) -> Mail | None:
    """Queue a mail to an event guest (someone without an account), about their own sign-up. With a
    `dedupe_key` (a change of the event told to this guest) a second call under the same key queues nothing
    and returns None."""
    now = timezone.now()
    try:
        with transaction.atomic():
            mail = Mail.objects.create(
                kind=kind,
                to_email=to_email,
                event_id=event_id,
                guest_id=guest_id,
                dedupe_key=dedupe_key,
                created_at=now,
                updated_at=now,
            )
            _enqueue([mail.pk])
    except IntegrityError:
        if dedupe_key is None:
            raise
        return None  # told before under this key (a double submit, a retry)
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
            kind=ACCOUNT,
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
    invitation_mails_enqueue(invitation_ids)
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
                    kind=INVITATION,
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
            raise MailError(MESSAGE_NO_INVITATION, code=NotificationRefusal.INVITATION_GONE)
        if not invitation.email:
            raise MailError(MESSAGE_NO_EMAIL, code=NotificationRefusal.INVITATION_NO_EMAIL)
        if invitation.status_at(now) != Invitation.Status.ACTIVE:
            raise MailError(MESSAGE_NOT_ACTIVE, code=NotificationRefusal.INVITATION_NOT_ACTIVE)
        if _opted_out([invitation.email]):
            raise MailError(MESSAGE_OPTED_OUT, code=NotificationRefusal.OPTED_OUT)
        mail = Mail.objects.select_for_update().filter(invitation=invitation).first()
        if mail is None:
            mail = Mail(kind=INVITATION, invitation=invitation, created_at=now)
        elif mail.status in (Mail.Status.QUEUED, Mail.Status.SENDING):
            return mail  # already on its way (or going out right now): a double click sends one mail
        mail.to_email = invitation.email
        mail.status = Mail.Status.QUEUED
        mail.updated_at = now
        mail.save()
        _enqueue([mail.pk])
    return mail
