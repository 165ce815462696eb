"""The messages of a page in their place (apps/core/anchored_messages.py).

{% load anchored_messages %}
{% messages_top %}<main>...{% endmessages_top %}          base.html: the page first, then the rest on top
<section id="agenda">{% messages_at "agenda" %} ...          a section: the answers that jumped to it
{% messages_at "item-" item.kind "-" item.object_id %}       an anchor made of parts
"""

from django import template
from django.contrib.messages import get_messages
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from ..anchored_messages import anchor_tag

register = template.Library()


def _request(context):
    return getattr(context, "request", None) or context.get("request")


def _shown(request) -> set[int]:
    """The messages a section showed during this render (by identity), so that the top leaves them out."""
    if not hasattr(request, "_messages_shown_in_place"):
        request._messages_shown_in_place = set()
    return request._messages_shown_in_place


@register.simple_tag(takes_context=True)
def messages_at(context, *parts) -> SafeString:
    request = _request(context)
    if request is None or not hasattr(request, "_messages"):
        return SafeString("")
    tag = anchor_tag("".join(str(part) for part in parts))
    found = [message for message in get_messages(request) if tag in (message.extra_tags or "").split()]
    if not found:
        return SafeString("")
    _shown(request).update(id(message) for message in found)
    return render_to_string("includes/messages_here.html", {"messages": found})  # a SafeString


class MessagesTopNode(template.Node):
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context) -> SafeString:
        inner = self.nodelist.render(context)  # the page first: its sections take their answers
        request = _request(context)
        if request is None or not hasattr(request, "_messages"):
            return inner  # the rendered page: a SafeString
        places = context.get("message_places") or ()
        shown = _shown(request)
        top = [
            message
            for message in get_messages(request)
            if id(message) not in shown and not (message.extra_tags and message.extra_tags in places)
        ]
        if not top:
            return inner  # the rendered page: a SafeString
        return render_to_string("includes/messages_top.html", {"messages": top}) + inner


@register.tag
def messages_top(parser, token):
    nodelist = parser.parse(("endmessages_top",))
    parser.delete_first_token()
    return MessagesTopNode(nodelist)
