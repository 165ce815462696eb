"""The sections samen plonsen adds to other pages, each bringing its own data (and the stamp card's props):
`{% load together %}{% plans_block %}` and `{% buddy_requests %}` on the dashboard,
`{% together_settings %}` on /account, `{% replies_section %}` under an afspraak (/samen/<id>) and an event
(/events/<id>)."""

import datetime

from django import template
from django.urls import reverse
from django.utils import timezone

from apps.core.page_cache import page_valid_until

from ..models import REPLY_MAX_LENGTH
from ..plans import next_plans
from ..reply_views import DRAFT_KEY, PAGE_FIELD, REPLIES_MESSAGE_PLACE
from ..selectors import (
    buddy_requests_for,
    meetup_now_for,
    replies_for,
    season_next_start,
    stamp_card_together,
)
from ..views import BUDDY_MESSAGE_PLACE

register = template.Library()


@register.inclusion_tag("together/_plans_block.html", takes_context=True)
def plans_block(context):
    """The dashboard's "Wie gaat er plonsen?": the first rows of the plan list (events and afspraken)."""
    plans = next_plans(context["request"].user)
    page_valid_until(context, timezone.now() + datetime.timedelta(seconds=plans.valid_for))
    return {"plans": plans, "csrf_token": context.get("csrf_token"), "messages": context.get("messages")}


@register.inclusion_tag("together/_buddy_requests.html", takes_context=True)
def buddy_requests(context):
    request = context["request"]
    answers = [message for message in context.get("messages") or () if message.extra_tags == BUDDY_MESSAGE_PLACE]
    return {"requests": buddy_requests_for(request.user), "answers": answers, "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("together/_account_tagging.html", takes_context=True)
def together_settings(context):
    return {"user": context["request"].user, "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("together/_stamp_card_data.html", takes_context=True)
def stamp_card_together_data(context):
    """The stamp card's "Met wie?", the season's briefing and "Opwarmen" (read by the island as
    `together-data`). The afspraak offered holds until it leaves its window: the cached card ends then."""
    user = context["request"].user
    meetup, until = meetup_now_for(user)
    page_valid_until(context, until)
    # The briefing is due again when the next season starts.
    page_valid_until(context, season_next_start(timezone.localdate()))
    return {"together": stamp_card_together(user, meetup=meetup)}


@register.inclusion_tag("together/_replies.html", takes_context=True)
def replies_section(context, *, meetup=None, event=None):
    """The replies under an afspraak (`meetup=`) or an event (`event=`), newest last, and the form to add one (not
    under a cancelled one). One query. The answer to "Plaats reactie" and "Verwijder" stands here, beside the form
    (the page names REPLIES_MESSAGE_PLACE in its `message_places`); a refused text comes back into the form."""
    request = context["request"]
    if meetup is not None:
        kind, target, closed = "meetup", meetup, meetup.is_cancelled
    else:
        kind, target, closed = "event", event, event.is_cancelled
    answers = [message for message in context.get("messages") or () if message.extra_tags == REPLIES_MESSAGE_PLACE]
    draft = request.session.pop(DRAFT_KEY, "") if answers else ""
    return {
        "replies": replies_for(request.user, **{f"{kind}_id": target.pk}),
        "post_url": reverse(f"{kind}_reply", args=[target.pk]),
        "page_field": PAGE_FIELD,
        "page_value": f"{kind}-{target.pk}",
        "closed": closed,
        "answers": answers,
        "draft": draft,
        "max_length": REPLY_MAX_LENGTH,
        "csrf_token": context.get("csrf_token"),
    }
