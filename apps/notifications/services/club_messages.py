"""Club messages from an admin: sent to every member as a notice, fanned out in background tasks."""

import datetime

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.page_cache import CLUB_MESSAGES, pages_changed

from ..kinds import CLUB_MESSAGE
from ..models import ClubMessage, Notice
from ..notices import notices_send
from ..queueing import club_message_fan_out_enqueue
from ..refusals import NotificationRefusal
from .push_subscriptions import PushError

MESSAGE_CLUB_TITLE = "Geef het bericht een titel."
MESSAGE_CLUB_BODY = "Schrijf een bericht."
CLUB_TITLE_MAX = 120
CLUB_BODY_MAX = 2000
# Notices per background task for a club message: 2,000 members are 4 tasks (apps.notifications.notices).
NOTICES_PER_TASK = 500


def club_message_send(*, author, title: str, body: str, meta: AuditMeta | None = None):
    """An admin's club message: saved now, told to every member by the worker (push or mail, their choice)."""
    title, body = " ".join(str(title or "").split()), str(body or "").strip()
    fields = {}
    if not title:
        fields["title"] = MESSAGE_CLUB_TITLE
    elif len(title) > CLUB_TITLE_MAX:
        fields["title"] = f"Een titel is hoogstens {CLUB_TITLE_MAX} tekens."
    if not body:
        fields["body"] = MESSAGE_CLUB_BODY
    elif len(body) > CLUB_BODY_MAX:
        fields["body"] = f"Een bericht is hoogstens {CLUB_BODY_MAX} tekens."
    if fields:
        raise PushError(next(iter(fields.values())), code=NotificationRefusal.CLUB_MESSAGE_INVALID, fields=fields)
    with transaction.atomic():
        message = ClubMessage.objects.create(author=author, title=title, body=body)
        pages_changed(CLUB_MESSAGES)
        club_message_fan_out_enqueue(message_id=message.pk)
        if meta is not None:  # the audit log, in this transaction
            audit_record(
                meta=meta, action=AuditAction.CLUB_MESSAGE_SENT, target_type="club_message", target_id=message.pk
            )
    return message


def club_message_fan_out_run(*, message_id: int, now: datetime.datetime | None = None) -> dict[str, int]:
    """In the worker: every active member told by `notices_send` (a notice for who wants it by push on a device,
    a mail for the others who want it; in quiet hours every one of them waits as a notice until they end). A
    second run of this task tells nobody twice: each member's notice has its key."""
    message = ClubMessage.objects.filter(pk=message_id).first()
    if message is None:
        return {}
    members = list(get_user_model().objects.filter(is_active=True).order_by("pk"))
    told = notices_send(
        users=members,
        kind=CLUB_MESSAGE,
        title=f"Clubbericht: {message.title}",
        body=message.body,
        url="/dashboard#clubberichten",
        dedupe_key=lambda user_id: f"club-message:{message.pk}:{user_id}",
        now=now,
    )
    pushed = sum(isinstance(row, Notice) for row in told.values())
    return {"push": pushed, "mail": len(told) - pushed}
