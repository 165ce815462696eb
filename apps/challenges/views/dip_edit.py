"""A member's own dips afterwards: add or correct the details and the photo, undo a mis-tap."""

from django.http import JsonResponse
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_json
from apps.core.errors import json_endpoint

from ..conditions import conditions_parse
from ..photos import photo_from_request
from ..selectors import dip_payload, stamp_card_props
from ..services.dips import dip_details_update, dip_undo

MESSAGE_DETAILS_SAVED = "Details opgeslagen."
MESSAGE_UNDONE = "Plons ongedaan gemaakt."


@json_endpoint
@member_required_json
@require_POST
def update_dip(request, dip_id: int):
    conditions = conditions_parse(request.POST)
    # The same limits as a new dip's photo: an upload budget per member and a bounded number of decodes.
    # Someone else's dip is answered like a missing one (DipNotFoundError, 404).
    photo = photo_from_request(request)
    dip = dip_details_update(user=request.user, dip_id=dip_id, conditions=conditions, photo=photo)
    return JsonResponse({"message": MESSAGE_DETAILS_SAVED, "dip": dip_payload(dip)})


@json_endpoint
@member_required_json
@require_POST
def undo_dip(request, dip_id: int):
    outcome = dip_undo(user=request.user, dip_id=dip_id)
    # The card as it is now: the server says which dips, badges and completion remain.
    return JsonResponse({"message": MESSAGE_UNDONE, "card": stamp_card_props(outcome.user_challenge)})
