"""A member's own dips afterwards: add or correct the details and the photo, undo a mis-tap."""

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_json

from ..conditions import ConditionsError, conditions_parse
from ..photos import (
    MESSAGE_UPLOAD_RATE,
    PhotoBusyError,
    PhotoError,
    photo_decode_slot,
    photo_process,
    photo_upload_allowed,
    too_large_message,
)
from ..selectors import dip_payload, stamp_card_props
from ..services.dips import dip_details_update, dip_undo
from ..services.errors import ChallengeError, DipNotFoundError
from .challenge import UPLOAD_OVERHEAD_BYTES, conditions_error_response

MESSAGE_DETAILS_SAVED = "Details opgeslagen."
MESSAGE_UNDONE = "Plons ongedaan gemaakt."


@member_required_json
@require_POST
def update_dip(request, dip_id: int):
    if int(request.META.get("CONTENT_LENGTH") or 0) > settings.PHOTO_MAX_BYTES + UPLOAD_OVERHEAD_BYTES:
        return JsonResponse({"error": too_large_message()}, status=413)
    try:
        conditions = conditions_parse(request.POST)
    except ConditionsError as error:
        return conditions_error_response(error)
    upload = request.FILES.get("photo")
    # The same limits as a new dip's photo: an upload budget per member and a bounded number of decodes.
    if upload is not None and not photo_upload_allowed(user_id=request.user.pk):
        return JsonResponse({"error": MESSAGE_UPLOAD_RATE}, status=429)
    try:
        photo = None
        if upload is not None:
            with photo_decode_slot():
                photo = photo_process(upload)
        dip = dip_details_update(user=request.user, dip_id=dip_id, conditions=conditions, photo=photo)
    except PhotoBusyError as error:
        return JsonResponse({"error": str(error)}, status=503)
    except PhotoError as error:
        return JsonResponse({"error": str(error)}, status=400)
    except ChallengeError as error:
        # Someone else's dip is answered like a missing one.
        return JsonResponse({"error": str(error)}, status=404 if isinstance(error, DipNotFoundError) else 409)
    return JsonResponse({"message": MESSAGE_DETAILS_SAVED, "dip": dip_payload(dip)})


@member_required_json
@require_POST
def undo_dip(request, dip_id: int):
    try:
        outcome = dip_undo(user=request.user, dip_id=dip_id)
    except ChallengeError as error:
        return JsonResponse({"error": str(error)}, status=404 if isinstance(error, DipNotFoundError) else 409)
    # The card as it is now: the server says which dips, badges and completion remain.
    return JsonResponse({"message": MESSAGE_UNDONE, "card": stamp_card_props(outcome.user_challenge)})
