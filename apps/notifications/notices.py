"""The one way to tell members something: `notice_send` (one member) and `notices_send` (many at once).

The kinds are declared by the apps that send them (apps.notifications.registry). The member's choice for a kind
(Push, Mail or Uit on /account, `NoticePreference`) decides:

- Push, with a subscribed device: a `Notice` row, delivered by the worker to each device (apps.notifications.push);
  a notice no device took falls back to mail when the kind has a mail fallback.
- Push without a device, or Mail: a mail (the kind's own mail when it has one, else the notice's text).
- Uit: nothing. An inactive member is told nothing.

Quiet hours (settings.QUIET_HOURS_START..END, local time) hold every kind that declares them until they end.
Batched kinds wait a few minutes and become one notice ("en 4 anderen") when more come in meanwhile.
"""

import datetime
import zoneinfo
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import Mail, MailPreference, Notice, NoticePreference, PushSubscription
from .queueing import mails_enqueue, notices_enqueue, rows_create_once
from .registry import KINDS, MAIL, OFF, PUSH, MessageKind, MessageKindUnknown, chosen_kinds, kind_of

__all__ = [
    "KINDS",
    "channel_for",
    "channels_for",
    "channels_for_users",
    "kind_of",
    "notice_mail_queue",
    "notice_send",
    "notices_send",
    "notices_withdraw",
    "quiet_until",
]

# Notices (and mails) per delivery task when many members are told at once: 2,000 members are 4 tasks.
PER_TASK = 500
# SQLite caps the parameters of one query.
_CHUNK = 500


def channels_for_users(user_ids: list[int]) -> dict[int, dict[str, str]]:
    """Each member's choice per kind (their rows, else the kind's default; Uit where an old mail choice is off).
    Two queries for any number of members."""
    chosen: dict[int, dict[str, str]] = {user_id: {} for user_id in user_ids}
    flags: dict[int, MailPreference] = {}
    for start in range(0, len(user_ids), _CHUNK):
        part = user_ids[start : start + _CHUNK]
        for user_id, kind, channel in NoticePreference.objects.filter(user_id__in=part).values_list(
            "user_id", "kind", "channel"
        ):
            chosen[user_id][kind] = channel
        flags |= {row.user_id: row for row in MailPreference.objects.filter(user_id__in=part)}
    kinds = chosen_kinds()
    result = {}
    for user_id in user_ids:
        flag = flags.get(user_id) or MailPreference()
        result[user_id] = {
            kind.name: chosen[user_id].get(kind.name)
            or (OFF if kind.mail_flag and not getattr(flag, kind.mail_flag) else kind.default)
            for kind in kinds
        }
    return result


def channels_for(user) -> dict[str, str]:
    """The member's choice per kind."""
    return channels_for_users([user.pk])[user.pk]


def channel_for(user, kind: str) -> str:
    return channels_for(user)[kind]


def _local(moment: datetime.datetime) -> datetime.datetime:
    return moment.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE))


def quiet_until(now: datetime.datetime) -> datetime.datetime | None:
    """The end of the quiet hours `now` falls in, or None outside them."""
    start, end = settings.QUIET_HOURS_START, settings.QUIET_HOURS_END
    local = _local(now)
    if start == end:
        return None
    quiet = (local.hour >= start or local.hour < end) if start > end else (start <= local.hour < end)
    if not quiet:
        return None
    day = local.date() if local.hour < end else local.date() + datetime.timedelta(days=1)
    return datetime.datetime.combine(day, datetime.time(end), local.tzinfo)


def _mail_for(notice: Notice, kind: MessageKind, now: datetime.datetime) -> Mail:
    """The unsaved mail a notice becomes: the kind's own (rendered when it goes out) or the notice's text."""
    user = notice.user
    mail = Mail(
        kind=kind.mail_kind,
        to_email=user.email,
        user=user,
        event_id=notice.event_id,
        dedupe_key=notice.dedupe_key,
        created_at=now,
        updated_at=now,
    )
    if not kind.own_mail:
        # Its own title and text, rendered by the worker (mail/notice): nothing rendered here, inside the change.
        mail.subject, mail.body_text, mail.link = notice.title[:255], notice.body, notice.url
    return mail


def notices_send(
    *,
    users: Sequence,
    kind: str,
    title: str,
    body: str,
    url: str = "/dashboard",
    event_id: int | None = None,
    dedupe_key: Callable[[int], str] | None = None,
    now: datetime.datetime | None = None,
) -> dict[int, Notice | Mail]:
    """Tell many members the same thing, each the way they chose: the rules of `notice_send`, in a few queries
    for any number of members (their choices, their devices, the keys told before, the rows, the tasks).
    `dedupe_key(user_id)` names each member's notice: a key told before tells nothing again. Call inside the
    transaction of the change it is about. Returns, per member told, their Notice or Mail."""
    notice_kind = _notice_kind(kind)
    now = now or timezone.now()
    if notice_kind.batch_seconds and dedupe_key is None:
        # An unkeyed batched kind joins each member's open notice under its row lock: one at a time.
        told = {}
        for user in users:
            result = notice_send(user=user, kind=kind, title=title, body=body, url=url, event_id=event_id, now=now)
            if result is not None:
                told[user.pk] = result
        return told
    return _told(users, notice_kind, title, body, url, event_id, dedupe_key, now)


def _notice_kind(name: str) -> MessageKind:
    kind = kind_of(name)
    if not kind.chosen:
        raise MessageKindUnknown(f"{name} is a mail only (no choice under Meldingen), not a notice")
    return kind


def _told(users, notice_kind: MessageKind, title, body, url, event_id, dedupe_key, now) -> dict[int, Notice | Mail]:
    kind = notice_kind.name
    users = [user for user in users if user.is_active]
    channels = channels_for_users([user.pk for user in users])
    wanted = [user for user in users if channels[user.pk][kind] != OFF]
    with_device: set[int] = set()
    pushing = [user.pk for user in wanted if channels[user.pk][kind] == PUSH]
    for start in range(0, len(pushing), _CHUNK):
        devices = PushSubscription.objects.filter(user_id__in=pushing[start : start + _CHUNK])
        with_device.update(devices.values_list("user_id", flat=True))
    held = quiet_until(now) if notice_kind.quiet_hours else None
    send_after = held or now
    if notice_kind.batch_seconds and dedupe_key is None:
        # A keyed notice is one of its own (the caller batched it already, as send_brrr_notices does): no wait.
        send_after = max(send_after, now + datetime.timedelta(seconds=notice_kind.batch_seconds))
    title, body = title[:200], body[:1000]
    as_notice: list[Notice] = []
    as_mail: list[Mail] = []
    for user in wanted:
        notice = Notice(
            user=user,
            kind=kind,
            title=title,
            body=body,
            url=url,
            event_id=event_id,
            dedupe_key=dedupe_key(user.pk) if dedupe_key else None,
            send_after=send_after,
            created_at=now,
        )
        if channels[user.pk][kind] == PUSH and user.pk not in with_device and not notice_kind.mail_fallback:
            continue  # push only, and nowhere to push to
        if user.pk in with_device or send_after > now:
            as_notice.append(notice)  # held notices wait as notices: push or mail is decided when they go
        elif channels[user.pk][kind] == MAIL or notice_kind.mail_fallback:
            as_mail.append(_mail_for(notice, notice_kind, now))
    with transaction.atomic(savepoint=False):
        notices = rows_create_once(Notice, as_notice)
        ids = [notice.pk for notice in notices]
        notices_enqueue(ids, per_task=PER_TASK, run_after=send_after if send_after > now else None)
        mails = rows_create_once(Mail, as_mail)
        mails_enqueue([mail.pk for mail in mails])
    told: dict[int, Notice | Mail] = {notice.user_id: notice for notice in notices}
    told |= {mail.user_id: mail for mail in mails if mail.user_id is not None}
    return told


def notice_mail_queue(*, notice: Notice) -> Mail | None:
    """A notice that goes by mail (in the worker: no device took it, or the member chose Mail since): the kind's
    own mail when it has one, else the notice's title and text. An inactive member gets nothing."""
    if not notice.user.is_active:
        return None
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        mails = rows_create_once(Mail, [_mail_for(notice, kind_of(notice.kind), now)])
        mails_enqueue([mail.pk for mail in mails])
    return mails[0] if mails else None


def _batched(*, kind: MessageKind, user, title: str, body: str, url: str, now) -> Notice | None:
    """The open notice of this kind that a new one joins (under its row lock), or None."""
    notice = (
        Notice.objects.select_for_update()
        .filter(user=user, kind=kind.name, status=Notice.Status.QUEUED, send_after__gt=now)
        .order_by("pk")
        .first()
    )
    if notice is None:
        return None
    notice.count += 1
    notice.title = title
    notice.body = f"{body} (en {notice.count - 1} meer)"[:1000]
    notice.url = url
    notice.save(update_fields=["count", "title", "body", "url"])
    return notice


def notice_send(
    *,
    user,
    kind: str,
    title: str,
    body: str,
    url: str = "/dashboard",
    event_id: int | None = None,
    dedupe_key: str | None = None,
    now: datetime.datetime | None = None,
) -> Notice | Mail | None:
    """Tell a member something, the way they chose. Call inside the transaction of the change it is about:
    a rolled-back change tells nothing. Returns the Notice (push, or held), the Mail, or None (Uit, inactive,
    or sent before under the same `dedupe_key`). A batched kind without a key joins the member's open notice."""
    notice_kind = _notice_kind(kind)
    if not user.is_active:
        return None
    now = now or timezone.now()
    if notice_kind.batch_seconds and dedupe_key is None and channel_for(user, kind) != OFF:
        with transaction.atomic():
            joined = _batched(kind=notice_kind, user=user, title=title, body=body, url=url, now=now)
            if joined is not None:
                return joined
            return _told([user], notice_kind, title, body, url, event_id, None, now).get(user.pk)
    key = (lambda _user_id: dedupe_key) if dedupe_key else None
    return _told([user], notice_kind, title, body, url, event_id, key, now).get(user.pk)


def notices_withdraw(*, user, kind: str, event_id: int) -> int:
    """Notices not yet delivered about an event that no longer stand (a place given up before its notice went)."""
    pending = Notice.objects.select_for_update().filter(
        user=user, kind=kind, event_id=event_id, status__in=[Notice.Status.QUEUED, Notice.Status.RETRY]
    )
    deleted, _ = Notice.objects.filter(pk__in=list(pending.values_list("pk", flat=True))).delete()
    return deleted
