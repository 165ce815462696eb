"""Replies where plans are made: a short message under a plonsafspraak or a club event ("Ik ben 5 minuten
later", "Neem jij de thermos mee?"). Every signed-in member who can see the afspraak or event may write one;
the writer removes her own, an admin any. The proposer of the afspraak, or the organisers and admins of the
event, hear of new ones batched (notices.reply_posted); the writer never hears of her own.

The pages that show replies move with them: an afspraak's under TOGETHER (/samen/<id>), an event's under
EVENTS (/events/<id>). How often a member may write is limited per request (the "reply" rate limit of
settings.ACCOUNT_RATE_LIMITS, in the view)."""

import datetime
import re

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.errors import NotFoundError
from apps.core.formatting import clock_time, dutch_date
from apps.core.page_cache import EVENTS, TOGETHER, pages_changed
from apps.events.models import Event

from . import notices
from .models import REPLY_MAX_LENGTH, Meetup, Reply
from .refusals import TogetherRefusal
from .services import TogetherError

ANCHOR = "#reacties"

MESSAGE_REPLY_POSTED = "Je reactie staat erbij."
MESSAGE_REPLY_DELETED = "De reactie is verwijderd."
MESSAGE_REPLY_EMPTY = "Schrijf eerst je reactie."
MESSAGE_REPLY_TOO_LONG = f"Houd je reactie kort: hoogstens {REPLY_MAX_LENGTH} tekens."
MESSAGE_REPLY_CLOSED = "Deze afspraak gaat niet door: reageren kan niet meer."
MESSAGE_REPLY_UNKNOWN = "Deze afspraak of dit event bestaat niet (meer)."
MESSAGE_REPLY_GONE = "Deze reactie bestaat niet (meer)."
MESSAGE_REPLY_NOT_YOURS = "Alleen wie de reactie schreef, of een admin, kan hem verwijderen."
MESSAGE_REPLY_TOO_MANY = "Je hebt net veel reacties geplaatst. Wacht even en probeer het dan opnieuw."

# Control characters other than a line break or a tab (PostgreSQL refuses NUL; the others only confuse).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")


class ReplyError(TogetherError):
    pass


class ReplyGone(ReplyError, NotFoundError):
    status = 404


def reply_clean(text: str) -> str:
    """The text as it is kept: Windows line breaks as one, no control characters, at most one empty line in a
    row, no spaces around it."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _MANY_BLANK_LINES.sub("\n\n", text).strip()


def reply_check(text: str) -> None:
    if not text:
        raise ReplyError(
            MESSAGE_REPLY_EMPTY, code=TogetherRefusal.REPLY_INVALID, status=400, fields={"text": MESSAGE_REPLY_EMPTY}
        )
    if len(text) > REPLY_MAX_LENGTH:
        raise ReplyError(
            MESSAGE_REPLY_TOO_LONG,
            code=TogetherRefusal.REPLY_INVALID,
            status=400,
            fields={"text": MESSAGE_REPLY_TOO_LONG},
        )


def reply_page_url(reply: Reply) -> str:
    """The page the reply stands on, at the replies."""
    if reply.meetup_id is not None:
        return reverse("meetup", args=[reply.meetup_id]) + ANCHOR
    return reverse("event", args=[reply.event_id]) + ANCHOR


def _meetup_words(meetup: Meetup) -> str:
    local = timezone.localtime(meetup.starts_at)
    return f"de afspraak van {dutch_date(local.date())} om {clock_time(meetup.starts_at)} ({meetup.place})"


def event_organisers(*, exclude_id: int) -> list[User]:
    """Who hears of a reply under an event: the club's organisers and admins (an event does not keep who made it)."""
    roles = [UserRole.Role.ADMIN, UserRole.Role.ORGANISER]
    return list(
        User.objects.filter(is_active=True, roles__role__in=roles).exclude(pk=exclude_id).distinct().order_by("pk")
    )


def reply_post(
    *,
    user: User,
    text: str,
    meetup_id: int | None = None,
    event_id: int | None = None,
    now: datetime.datetime | None = None,
) -> Reply:
    """ "Plaats reactie" under an afspraak (`meetup_id`) or an event (`event_id`): not under a cancelled one, nor
    one that is gone. Tells the proposer, or the event's organisers and admins, in this transaction."""
    if (meetup_id is None) == (event_id is None):
        raise ValueError("a reply goes under an afspraak or an event: name exactly one")
    now = now or timezone.now()
    text = reply_clean(text)
    reply_check(text)
    with transaction.atomic():
        if meetup_id is not None:
            meetup = Meetup.objects.select_related("proposer").filter(pk=meetup_id).first()
            if meetup is None:
                raise ReplyGone(MESSAGE_REPLY_UNKNOWN, code=TogetherRefusal.REPLY_CLOSED)
            if meetup.is_cancelled:
                raise ReplyError(MESSAGE_REPLY_CLOSED, code=TogetherRefusal.REPLY_CLOSED)
            reply = Reply.objects.create(author=user, meetup=meetup, text=text, created_at=now)
            where = _meetup_words(meetup)
            told = [meetup.proposer] if meetup.proposer_id != user.pk else []
            pages_changed(TOGETHER)
        else:
            shown = Q(is_active=True) | Q(cancelled_at__isnull=False)
            event = Event.objects.filter(shown, pk=event_id or 0).first()
            if event is None:
                raise ReplyGone(MESSAGE_REPLY_UNKNOWN, code=TogetherRefusal.REPLY_CLOSED)
            if event.is_cancelled:
                raise ReplyError(MESSAGE_REPLY_CLOSED, code=TogetherRefusal.REPLY_CLOSED)
            reply = Reply.objects.create(author=user, event=event, text=text, created_at=now)
            where = event.title
            told = event_organisers(exclude_id=user.pk)
            pages_changed(EVENTS)
        reply.author = user
        notices.reply_posted(reply=reply, where=where, url=reply_page_url(reply), users=told)
    return reply


def reply_delete(*, user: User, reply_id: int, meta: AuditMeta | None = None) -> Reply:
    """ "Verwijder": the writer her own, an admin any (recorded in the audit log). Returns the removed reply (its
    page to go back to). A reply gone already (a double tap) is refused as gone: the member sees it is not there."""
    with transaction.atomic():
        reply = Reply.objects.select_for_update().filter(pk=reply_id).first()
        if reply is None:
            raise ReplyGone(MESSAGE_REPLY_GONE, code=TogetherRefusal.REPLY_GONE)
        if reply.author_id != user.pk and not user.is_admin:
            raise ReplyError(MESSAGE_REPLY_NOT_YOURS, code=TogetherRefusal.REPLY_NOT_YOURS, status=403)
        if reply.author_id != user.pk:
            audit_record(
                meta=meta or AuditMeta(actor_id=user.pk, actor_label=user.email),
                action=AuditAction.REPLY_REMOVED,
                target_type="reply",
                target_id=reply.pk,
            )
        reply.delete()  # the page moves with it (signals.reply_gone)
        pages_changed(TOGETHER if reply.meetup_id is not None else EVENTS)
    return reply
