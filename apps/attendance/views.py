"""/events/<id>/waterkant: "Aan de waterkant" for the organisers (and admins) of a club swim, on their phones.
The page holds the list as it is now; its island (frontend/src/islands/waterkant.tsx) keeps the taps on the
phone, sends them in order once there is signal, and asks for the list again every few seconds."""

import datetime
import json

from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import member_mark, organiser_required, organiser_required_json, queued_by_another_member
from apps.audit.services import AuditMeta
from apps.core.errors import json_endpoint
from apps.events.models import Event

from .refusals import ShoreRefusal
from .selectors import member_find
from .shore import MESSAGE_BAD_TAP, ShoreError, shore_close, shore_member_add, shore_tap
from .shore_state import shore_state

MESSAGE_OTHER_MEMBER = "Deze tik is van een andere organisator op deze telefoon: hij gaat mee als zij weer inlogt."
# A tap's body is a few short fields: anything longer is not a tap.
BODY_MAX_BYTES = 2048


def _urls(event: Event) -> dict[str, str]:
    return {
        name: reverse(f"event_waterkant_{name}", args=[event.pk]) for name in ("state", "tap", "member", "close")
    } | {"veilig": reverse("veilig") + "#veilig-duur"}


@organiser_required
@require_safe
def event_waterkant(request, event_id: int):
    event = get_object_or_404(Event, pk=event_id)
    state = shore_state(event)
    props = {"state": state, "urls": _urls(event), "title": event.title, "member": member_mark(request.user.pk)}
    return render(request, "attendance/waterkant.html", {"event": event, "props": props, "state": state})


def _answer(event_id: int) -> JsonResponse:
    event = get_object_or_404(Event, pk=event_id)
    response = JsonResponse(shore_state(event))
    response["Cache-Control"] = "private, no-store"
    return response


@json_endpoint
@organiser_required_json
@require_safe
def event_waterkant_state(request, event_id: int):
    return _answer(event_id)


def _body(request) -> dict:
    if len(request.body) > BODY_MAX_BYTES:
        raise ShoreError(MESSAGE_BAD_TAP, code=ShoreRefusal.SHORE_BAD_TAP, status=400)
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise ShoreError(MESSAGE_BAD_TAP, code=ShoreRefusal.SHORE_BAD_TAP, status=400)
    return body


def _moment(value: object) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ShoreError(MESSAGE_BAD_TAP, code=ShoreRefusal.SHORE_BAD_TAP, status=400)
    return moment


@json_endpoint
@organiser_required_json
@require_POST
def event_waterkant_tap(request, event_id: int):
    """One tap from the phone's queue: `{"swimmer", "kind", "tapped_at", "first_name"?}`; answers the list."""
    if queued_by_another_member(request):
        # Kept on a shared phone by another organiser: the phone keeps it for her next session.
        raise ShoreError(MESSAGE_OTHER_MEMBER, code=ShoreRefusal.SHORE_OTHER_MEMBER, status=409)
    body = _body(request)
    shore_tap(
        event_id=event_id,
        organiser=request.user,
        swimmer=str(body.get("swimmer", "")),
        kind=str(body.get("kind", "")),
        tapped_at=_moment(body.get("tapped_at")),
        first_name=str(body.get("first_name") or ""),
        meta=AuditMeta.from_request(request),
    )
    return _answer(event_id)


@json_endpoint
@organiser_required_json
@require_POST
def event_waterkant_member(request, event_id: int):
    """A member who came without signing up, by name or e-mail address (the club's members are not on the phone,
    so this one needs signal)."""
    shore_member_add(event_id=event_id, user=member_find(str(_body(request).get("name", ""))))
    return _answer(event_id)


@json_endpoint
@organiser_required_json
@require_POST
def event_waterkant_close(request, event_id: int):
    shore_close(event_id=event_id)
    return _answer(event_id)
