"""Replies under an afspraak (/samen/<id>) and an event (/events/<id>): "Plaats reactie" and "Verwijder". Plain
POST forms that land back on the page at its replies (#reacties), where the answer is shown beside the form
(REPLIES_MESSAGE_PLACE; the pages name it in their `message_places`)."""

import re

from allauth.core import ratelimit
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_action
from apps.audit.services import AuditMeta

from .models import REPLY_MAX_LENGTH
from .replies import (
    ANCHOR,
    MESSAGE_REPLY_DELETED,
    MESSAGE_REPLY_POSTED,
    MESSAGE_REPLY_TOO_MANY,
    ReplyError,
    reply_delete,
    reply_post,
)

REPLIES_MESSAGE_PLACE = "replies-section"
RATE_LIMIT_ACTION = "reply"
# A refused reply's text, kept for the form on the next view of the page (in the member's own session).
DRAFT_KEY = "reply_draft"
# The hidden field of a "Verwijder" form: the page it stands on ("meetup-12", "event-7").
PAGE_FIELD = "page"
_PAGE = re.compile(r"(meetup|event)-([0-9]{1,18})")


def _page_url(kind: str, object_id: int) -> str:
    return reverse(kind, args=[object_id]) + ANCHOR


def _say(request, level: int, text: str) -> None:
    messages.add_message(request, level, text, extra_tags=REPLIES_MESSAGE_PLACE)


def _post(request, *, back: str, **target):
    text = request.POST.get("text", "")
    if not ratelimit.consume(request, action=RATE_LIMIT_ACTION, user=request.user):
        _say(request, messages.ERROR, MESSAGE_REPLY_TOO_MANY)
        request.session[DRAFT_KEY] = text[: REPLY_MAX_LENGTH * 2]
        return redirect(back)
    try:
        reply_post(user=request.user, text=text, **target)
    except ReplyError as error:
        _say(request, messages.ERROR, str(error))
        request.session[DRAFT_KEY] = text[: REPLY_MAX_LENGTH * 2]
    else:
        _say(request, messages.SUCCESS, MESSAGE_REPLY_POSTED)
    return redirect(back)


@member_required_action("/samen")
@require_POST
def meetup_reply(request, meetup_id: int):
    """ "Plaats reactie" under an afspraak."""
    return _post(request, back=_page_url("meetup", meetup_id), meetup_id=meetup_id)


@member_required_action("/events")
@require_POST
def event_reply(request, event_id: int):
    """ "Plaats reactie" under an event."""
    return _post(request, back=_page_url("event", event_id), event_id=event_id)


@member_required_action("/samen")
@require_POST
def delete(request, reply_id: int):
    """ "Verwijder": the writer her own reply, an admin any."""
    page = _PAGE.fullmatch(request.POST.get(PAGE_FIELD, ""))
    back = _page_url(page[1], int(page[2])) if page else "/samen"
    try:
        reply = reply_delete(user=request.user, reply_id=reply_id, meta=AuditMeta.from_request(request))
    except ReplyError as error:
        _say(request, messages.ERROR, str(error))
        return redirect(back)
    _say(request, messages.SUCCESS, MESSAGE_REPLY_DELETED)
    if reply.meetup_id is not None:
        return redirect(_page_url("meetup", reply.meetup_id))
    return redirect(_page_url("event", reply.event_id or 0))
