"""What members are told, and how: the registry of notice kinds and the one way to send a notice.

Every feature that tells a member something calls `notice_send(kind=..., user=..., title=..., body=...,
url=...)`. The member's choice for that kind (Push, Mail or Uit on /account, `NoticePreference`) decides:

- Push, with a subscribed device: a `Notice` row, delivered by the worker to each device (apps.notifications.push);
  a notice no device took falls back to mail when the kind has a mail fallback.
- Push without a device, or Mail: a mail (the kind's own mail when it has one, else the notice's text).
- Uit: nothing.

Quiet hours (settings.QUIET_HOURS_START..END, local time) hold every kind except event changes until they
end. Batched kinds wait a few minutes and become one notice ("en 4 anderen") when more come in meanwhile.
"""

import datetime
import zoneinfo
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from .links import absolute_url
from .models import Channel, Mail, MailPreference, Notice, NoticePreference, PushSubscription


@dataclass(frozen=True)
class NoticeKind:
    name: str
    label: str  # Dutch, for /account
    group: str  # the heading it is listed under on /account
    default: str = Channel.PUSH  # push when a device is subscribed, else mail (when it has a mail fallback)
    mail_fallback: bool = True
    quiet_hours: bool = True  # held during quiet hours
    batch_seconds: int = 0  # > 0: notices of this kind to one member within this window become one
    # The kind's own mail (rich text of its own), else the notice goes by mail as its title and text.
    mail_kind: str = ""
    # The old mail choice (MailPreference field) that also governs this kind: off there means Uit here.
    mail_flag: str = ""


CLUB_MESSAGE = "club_message"
EVENT_REMINDER = "event_reminder"
EVENT_CHANGED = "event_changed"
EVENT_CANCELLED = "event_cancelled"
WAITLIST_PLACE = "waitlist_place"
TOGETHER_JOINED = "together_joined"
TOGETHER_CANCELLED = "together_cancelled"
BUDDY_REQUEST = "buddy_request"
REACTION = "reaction"
DIP_NUDGE = "dip_nudge"

KINDS: dict[str, NoticeKind] = {
    kind.name: kind
    for kind in [
        NoticeKind(CLUB_MESSAGE, "Clubberichten", "Club"),
        NoticeKind(
            EVENT_REMINDER,
            "Herinnering de dag voor een event",
            "Events",
            mail_kind=Mail.Kind.EVENT_REMINDER,
            mail_flag="event_mails",
        ),
        NoticeKind(
            EVENT_CHANGED,
            "Een event verandert van tijd of plaats",
            "Events",
            quiet_hours=False,
            mail_kind=Mail.Kind.EVENT_CHANGED,
            mail_flag="event_mails",
        ),
        NoticeKind(EVENT_CANCELLED, "Een event gaat niet door", "Events", quiet_hours=False, mail_flag="event_mails"),
        NoticeKind(
            WAITLIST_PLACE,
            "Er is een plek vrij voor je (wachtlijst)",
            "Events",
            quiet_hours=False,
            mail_kind=Mail.Kind.WAITLIST_OFFER,
            mail_flag="event_mails",
        ),
        # Samen plonsen is club life beside the events: the old "mail over mijn events" choice governs it too.
        NoticeKind(
            TOGETHER_JOINED,
            "Iemand plonst mee met je afspraak",
            "Samen plonsen",
            batch_seconds=300,
            mail_flag="event_mails",
        ),
        NoticeKind(
            TOGETHER_CANCELLED,
            "Een afspraak gaat niet door",
            "Samen plonsen",
            mail_kind=Mail.Kind.MEETUP_CANCELLED,
            mail_flag="event_mails",
        ),
        NoticeKind(
            BUDDY_REQUEST,
            "Een buddyverzoek",
            "Samen plonsen",
            mail_kind=Mail.Kind.BUDDY_REQUEST,
            mail_flag="event_mails",
        ),
        # The club app batches Brrr!s itself (send_brrr_notices: one notice a day at most, with its key); the batch
        # window is for single reactions sent without one.
        NoticeKind(
            REACTION,
            "Brrr! op je plons",
            "Reacties",
            batch_seconds=300,
            mail_kind=Mail.Kind.BRRR,
            mail_flag="club_notices",
        ),
        NoticeKind(
            DIP_NUDGE,
            "Herinnering na 14 dagen zonder plons",
            "Herinnering",
            mail_kind=Mail.Kind.DIP_NUDGE,
            mail_flag="dip_nudge",
        ),
    ]
}

# The old mail choices (the checkboxes of 'Herinneringen per e-mail' and the unsubscribe links) and the
# kinds they govern.
FLAG_KINDS: dict[str, list[str]] = {}
for _kind in KINDS.values():
    if _kind.mail_flag:
        FLAG_KINDS.setdefault(_kind.mail_flag, []).append(_kind.name)


class NoticeKindUnknown(ValueError):
    pass


def kind_of(name: str) -> NoticeKind:
    try:
        return KINDS[name]
    except KeyError as exc:
        raise NoticeKindUnknown(name) from exc


def channels_for_users(user_ids: list[int]) -> dict[int, dict[str, str]]:
    """Each member's choice per kind (their rows, else the kind's default; Uit where an old mail choice is off).
    Two queries for any number of members."""
    chosen: dict[int, dict[str, str]] = {user_id: {} for user_id in user_ids}
    for user_id, kind, channel in NoticePreference.objects.filter(user_id__in=user_ids).values_list(
        "user_id", "kind", "channel"
    ):
        chosen[user_id][kind] = channel
    flags = {row.user_id: row for row in MailPreference.objects.filter(user_id__in=user_ids)}
    result = {}
    for user_id in user_ids:
        flag = flags.get(user_id) or MailPreference()
        result[user_id] = {
            kind.name: chosen[user_id].get(kind.name)
            or (Channel.OFF if kind.mail_flag and not getattr(flag, kind.mail_flag) else kind.default)
            for kind in KINDS.values()
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


def notice_mail_queue(*, notice: Notice) -> Mail | None:
    """A notice that goes by mail: the kind's own mail when it has one, else the notice's title and text."""
    from .services import member_mail_queue, prerendered_mail_queue

    kind = kind_of(notice.kind)
    if kind.mail_kind:
        return member_mail_queue(
            kind=kind.mail_kind,
            user=notice.user,
            event_id=notice.event_id,
            dedupe_key=notice.dedupe_key,
            chosen=True,
        )
    context = {
        "member_name": notice.user.display_name,
        "title": notice.title,
        "body": notice.body,
        "link": absolute_url(notice.url),
        "account_url": absolute_url("/account#meldingen"),
        "subject": notice.title,
    }
    return prerendered_mail_queue(
        user=notice.user,
        subject=notice.title,
        text=render_to_string("mail/notice.txt", context),
        html=render_to_string("mail/notice.html", context),
        dedupe_key=notice.dedupe_key,
    )


def _batched(*, kind: NoticeKind, user, title: str, body: str, url: str, now) -> Notice | None:
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
    a rolled-back change tells nothing. Returns the Notice (push, or held), the Mail, or None (Uit, or sent
    before under the same `dedupe_key`)."""
    from .tasks import deliver_notices

    notice_kind = kind_of(kind)
    if not user.is_active:
        return None
    channel = channel_for(user, kind)
    if channel == Channel.OFF:
        return None
    now = now or timezone.now()
    send_after = now
    held = quiet_until(now) if notice_kind.quiet_hours else None
    if held is not None:
        send_after = held
    if notice_kind.batch_seconds and dedupe_key is None:
        # A keyed notice is one of its own (the caller batched it already, as send_brrr_notices does): no wait.
        send_after = max(send_after, now + datetime.timedelta(seconds=notice_kind.batch_seconds))
    has_device = channel == Channel.PUSH and PushSubscription.objects.filter(user=user).exists()
    if not has_device and channel == Channel.PUSH and not notice_kind.mail_fallback:
        return None  # push only, and nowhere to push to
    title, body = title[:200], body[:1000]
    with transaction.atomic():
        if has_device or send_after > now:
            if notice_kind.batch_seconds and dedupe_key is None:
                joined = _batched(kind=notice_kind, user=user, title=title, body=body, url=url, now=now)
                if joined is not None:
                    return joined
            try:
                with transaction.atomic():
                    notice = Notice.objects.create(
                        user=user,
                        kind=kind,
                        title=title,
                        body=body,
                        url=url,
                        event_id=event_id,
                        dedupe_key=dedupe_key,
                        send_after=send_after,
                        created_at=now,
                    )
            except IntegrityError:
                return None  # sent before under this key (a second cron run)
            task = deliver_notices if send_after <= now else deliver_notices.using(run_after=send_after)
            task.enqueue(notice_ids=[notice.pk])
            return notice
        if channel == Channel.MAIL or notice_kind.mail_fallback:
            unsaved = Notice(
                user=user, kind=kind, title=title, body=body, url=url, event_id=event_id, dedupe_key=dedupe_key
            )
            return notice_mail_queue(notice=unsaved)
    return None


def notices_withdraw(*, user, kind: str, event_id: int) -> int:
    """Notices not yet delivered about an event that no longer stand (a place given up before its notice went)."""
    pending = Notice.objects.select_for_update().filter(
        user=user, kind=kind, event_id=event_id, status__in=[Notice.Status.QUEUED, Notice.Status.RETRY]
    )
    deleted, _ = Notice.objects.filter(pk__in=list(pending.values_list("pk", flat=True))).delete()
    return deleted
