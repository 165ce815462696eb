"""The sections samen plonsen adds to other pages, each bringing its own data (and the stamp card's props):
`{% load together %}{% plans_block %}` and `{% buddy_requests %}` on the dashboard,
`{% together_settings %}` on /account."""

import datetime

from django import template
from django.utils import timezone

from apps.core.page_cache import page_valid_until

from ..plans import next_plans
from ..selectors import (
    buddy_requests_for,
    meetup_now_for,
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
    return {"together": stamp_card_together(user, meetup=meetup)}
