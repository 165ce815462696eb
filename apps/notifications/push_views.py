"""Meldingen: a browser subscribes (JSON, from the /account section's script), a member removes a device and
chooses Push, Mail or Uit per kind (plain forms on /account)."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_json
from apps.core.errors import DomainError, json_endpoint
from apps.core.numbers import whole_number

from .refusals import NotificationRefusal
from .registry import chosen_kinds
from .services import (
    MESSAGE_NO_DEVICE,
    PushError,
    notice_preferences_set,
    push_subscription_delete,
    push_subscription_save,
)

MESSAGE_SUBSCRIBED = "Meldingen staan aan op dit apparaat."
MESSAGE_DEVICE_REMOVED = "Dit apparaat krijgt geen meldingen meer."
MESSAGE_CHOICES_SAVED = "Je keuzes voor meldingen zijn opgeslagen."
MESSAGE_BAD_JSON = "Dit apparaat gaf geen bruikbaar abonnement door. Probeer het opnieuw."
BACK = "/account#meldingen"
# A subscription is a few hundred bytes; anything much longer is not one.
BODY_MAX = 8 * 1024


@json_endpoint
@member_required_json
@require_POST
def subscribe(request):
    """POST /meldingen/abonnement: {"subscription": <PushSubscription.toJSON()>, "device": "iPhone"}.

    Whatever the body is (deep, huge, not JSON, wrong types, a NUL), the answer is a Dutch 400, never a 500."""
    try:
        length = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        length = BODY_MAX + 1
    if length > BODY_MAX:
        raise PushError(MESSAGE_BAD_JSON, code=NotificationRefusal.BAD_SUBSCRIPTION)
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise PushError(MESSAGE_BAD_JSON, code=NotificationRefusal.BAD_SUBSCRIPTION) from exc
    if not isinstance(body, dict):
        raise PushError(MESSAGE_BAD_JSON, code=NotificationRefusal.BAD_SUBSCRIPTION)
    saved = push_subscription_save(
        user=request.user, subscription=body.get("subscription"), device_label=body.get("device")
    )
    return JsonResponse({"id": saved.pk, "device": saved.device_label, "message": MESSAGE_SUBSCRIBED})


@login_required
@require_POST
def device_delete(request, subscription_id):
    number = whole_number(subscription_id)
    try:
        if number is None:
            raise PushError(MESSAGE_NO_DEVICE, code=NotificationRefusal.NO_DEVICE, status=404)
        push_subscription_delete(user=request.user, subscription_id=number)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, MESSAGE_DEVICE_REMOVED)
    return redirect(BACK)


@login_required
@require_POST
def preferences(request):
    """One radio group per kind (`kind_<name>`): Push, Mail or Uit. A kind not sent keeps its choice."""
    names = [kind.name for kind in chosen_kinds()]
    choices = {name: request.POST[f"kind_{name}"] for name in names if f"kind_{name}" in request.POST}
    try:
        notice_preferences_set(user=request.user, choices=choices)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, MESSAGE_CHOICES_SAVED)
    return redirect(BACK)
