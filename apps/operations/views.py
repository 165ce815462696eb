"""The Systeemstatus for uptime monitors (GET /status with the token of STATUS_TOKEN) and the card on /admin."""

import hashlib
import hmac
from functools import lru_cache

from django.conf import settings
from django.http import Http404, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from .status import system_status

MESSAGE_BAD_TOKEN = "Geen of een verkeerd token: stuur Authorization: Bearer <STATUS_TOKEN>."  # noqa: S105 - a message, not a secret


@never_cache
@require_safe
def status_endpoint(request):
    """Plain text: 200 with 'ok' when all is well, 503 with the red lines when not. Without STATUS_TOKEN
    set it does not exist (404); without the right token it is refused (403)."""
    token = settings.STATUS_TOKEN
    if not token:
        raise Http404
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return HttpResponse(MESSAGE_BAD_TOKEN + "\n", status=403, content_type="text/plain; charset=utf-8")
    status = system_status()
    lines = ["ok" if status.ok else "rood"]
    lines += [f"ROOD: {result.red}" for result in status.red]
    lines += [f"{result.label}: {result.value}" for result in status.results]
    return HttpResponse(
        "\n".join(lines) + "\n", status=200 if status.ok else 503, content_type="text/plain; charset=utf-8"
    )


@lru_cache(maxsize=1)
def status_card_slot() -> str:
    """Where the card goes in a page that is cached: the card itself is fresh on every request. Derived from
    the secret key, as the CSRF placeholder of apps/core/page_cache.py, so no member can type it."""
    return (
        "<!--systeemstatus-"
        + hmac.new(settings.SECRET_KEY.encode(), b"status-card", hashlib.sha256).hexdigest()[:24]
        + "-->"
    )


# The card of the newest status, per process: /admin's looks of one minute share one rendering.
_card_rendered: dict[str, str] = {}


def status_card_html() -> str:
    status = system_status()
    html = _card_rendered.get(status.gathering)
    if html is None:
        html = render_to_string("operations/_status_card.html", {"status": status})
        _card_rendered.clear()
        _card_rendered[status.gathering] = html
    return html
