"""A member's own dips afterwards: add or correct the details and the photo, undo a mis-tap."""

from django.http import JsonResponse
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_json
from apps.core.errors import json_endpoint

from ..card_payloads import dip_payload, dip_signed_off, stamp_card_props
from ..conditions import conditions_parse
from ..photos import photo_from_request
from ..services.dip_changes import dip_details_update, dip_undo
from ..services.sharing import dip_photo_share_set, share_photo_parse

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
    share = share_photo_parse(request.POST)
    if share is not None:  # "Deel deze foto met de club", when the form sent it
        dip = dip_photo_share_set(user=request.user, dip_id=dip_id, share=share)
    return JsonResponse({"message": MESSAGE_DETAILS_SAVED, "dip": dip_payload(dip_signed_off(dip))})


@json_endpoint
@member_required_json
@require_POST
def undo_dip(request, dip_id: int):
    outcome = dip_undo(user=request.user, dip_id=dip_id)
    # The card as it is now: the server says which dips, badges and completion remain (none for a dip that
    # had no card: it counted for club challenges only).
    card = outcome.user_challenge
    return JsonResponse({"message": MESSAGE_UNDONE, "card": stamp_card_props(card) if card is not None else None})
