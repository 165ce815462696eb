"""Every answer where the member looks, after an anchor jump too (issue 34 §6). A form that redirects to a page
section (`/dashboard#clubchallenges`, `/account#agenda`, `/admin/events/7#aanwezig` ...) lands the member there,
900 px below the top of the page: a message drawn at the top is never seen.

Declared once, not remembered per view: `AnchoredMessagesMiddleware` tags each message a request queued without a
tag of its own with the anchor of the redirect it answers with (`at:<anchor>`); the element with that id shows it
with `{% messages_at "anchor" %}` (apps/core/templatetags/anchored_messages.py), and the page's top shows only what
no section showed (`{% messages_top %}` in base.html renders the page first). A message whose section is not on
the page (a cached section, a section that went away) is shown at the top: never lost.
tests/core/test_anchored_messages.py finds every redirect with an anchor in the code and checks its section shows
the answer. Messages with a tag of their own (a celebration, the undo offer, a place of their own) keep it.
"""

from urllib.parse import urlsplit

from django.contrib.messages import get_messages
from django.contrib.messages.storage.base import Message

ANCHOR_TAG = "at:"


def anchor_tag(anchor: str) -> str:
    return ANCHOR_TAG + anchor


def anchor_of(location: str) -> str:
    return urlsplit(location).fragment


class AnchoredMessagesMiddleware:
    """After MessageMiddleware in MIDDLEWARE, so that it runs before the messages are stored."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        anchor = anchor_of(response.get("Location", "")) if 300 <= response.status_code < 400 else ""
        if anchor and hasattr(request, "_messages"):
            # The request's new messages (BaseStorage keeps them apart from the ones it read).
            queued: list[Message] = getattr(get_messages(request), "_queued_messages", [])
            for message in queued:
                if not message.extra_tags:
                    message.extra_tags = anchor_tag(anchor)
        return response
