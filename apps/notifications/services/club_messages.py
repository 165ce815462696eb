"""Club messages from an admin: sent to every member as a notice, fanned out in background tasks."""

import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.page_cache import CLUB_MESSAGES, pages_changed

from ..refusals import NotificationRefusal
from .mail_queue import (
    _CHUNK,
)
from .push_subscriptions import (
    PushError,
)

MESSAGE_CLUB_TITLE = "Geef het bericht een titel."
MESSAGE_CLUB_BODY = "Schrijf een bericht."
CLUB_TITLE_MAX = 120
CLUB_BODY_MAX = 2000
# Notices per background task for a club message: 2,000 members are 4 tasks.
NOTICES_PER_TASK = 500


def club_message_send(*, author, title: str, body: str, meta: AuditMeta | None = None):
    """An admin's club message: saved now, told to every member by the worker (push or mail, their choice)."""
    from ..models import ClubMessage
    from ..tasks import club_message_fan_out

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
        club_message_fan_out.enqueue(message_id=message.pk)
        if meta is not None:  # the audit log, in this transaction
            audit_record(
                meta=meta, action=AuditAction.CLUB_MESSAGE_SENT, target_type="club_message", target_id=message.pk
            )
    return message


def club_message_fan_out_run(*, message_id: int, now: datetime.datetime | None = None) -> dict[str, int]:
    """In the worker: a notice for each member who wants club messages by push (on a device), a mail for the
    others who want them; in quiet hours every one of them waits as a notice until the quiet hours end."""
    from ..models import ClubMessage, Notice
    from ..notices import CLUB_MESSAGE, quiet_until
    from ..selectors import club_message_audience
    from ..tasks import deliver_notices

    message = ClubMessage.objects.filter(pk=message_id).first()
    if message is None:
        return {}
    now = now or timezone.now()
    audience = club_message_audience()
    held = quiet_until(now)
    title = f"Clubbericht: {message.title}"[:200]
    body = message.body[:1000]
    users = get_user_model().objects.filter(pk__in=audience.push_ids + audience.mail_ids)
    by_id = {u.pk: u for u in users}
    # In quiet hours everyone waits as a notice; the worker decides push or mail when they end.
    push_ids = audience.push_ids if held is None else audience.push_ids + audience.mail_ids
    mail_ids = audience.mail_ids if held is None else []
    with transaction.atomic():
        notices = Notice.objects.bulk_create(
            [
                Notice(
                    user_id=user_id,
                    kind=CLUB_MESSAGE,
                    title=title,
                    body=body,
                    url="/dashboard#clubberichten",
                    dedupe_key=f"club-message:{message.pk}:{user_id}",
                    send_after=held or now,
                    created_at=now,
                )
                for user_id in push_ids
            ],
            batch_size=_CHUNK,
            ignore_conflicts=True,
        )
        ids = list(
            Notice.objects.filter(dedupe_key__startswith=f"club-message:{message.pk}:", status=Notice.Status.QUEUED)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        task = deliver_notices if held is None else deliver_notices.using(run_after=held)
        for start in range(0, len(ids), NOTICES_PER_TASK):
            task.enqueue(notice_ids=ids[start : start + NOTICES_PER_TASK])
    from ..notices import notice_mail_queue

    mailed = 0
    for user_id in mail_ids:
        user = by_id.get(user_id)
        if user is None:
            continue
        unsent = Notice(
            user=user,
            kind=CLUB_MESSAGE,
            title=title,
            body=body,
            url="/dashboard#clubberichten",
            dedupe_key=f"club-message:{message.pk}:{user_id}",  # a second run of this task mails nobody twice
        )
        mailed += notice_mail_queue(notice=unsent) is not None
    return {"push": len(notices), "mail": mailed}
