"""A member's own dips afterwards: add or correct the details and the photo, undo a mis-tap."""

from django.http import JsonResponse
from django.views.decorators.http import require_POST

from apps.accounts.access import member_required_json, queued_by_another_member
from apps.core.errors import DomainError, json_endpoint

from ..card_payloads import dip_payload, dip_signed_off, stamp_card_props
from ..conditions import conditions_parse
from ..photos import photo_from_request, upload_size_check
from ..refusals import DipRefusal
from ..services.dip_changes import dip_details_update, dip_photo_add, dip_undo
from ..services.errors import ChallengeError
from ..services.sharing import dip_photo_share_set, share_photo_parse
from .challenge import MESSAGE_BAD_REQUEST, MESSAGE_OTHER_MEMBER

MESSAGE_DETAILS_SAVED = "Details opgeslagen."
MESSAGE_UNDONE = "Plons ongedaan gemaakt."
MESSAGE_PHOTO_ADDED = "Foto toegevoegd."
MESSAGE_PHOTO_KEPT = "Deze plons had al een foto: die blijft staan."
# The stamp card's photo sent after its dip (the tap is registered at once, the photo when it has shrunk):
# only the photo and its share choice, the details stay as they are (dip_photo_add).
PHOTO_AFTER_TAP_FIELD = "photo_after_tap"


@json_endpoint
@member_required_json
@require_POST
def update_dip(request, dip_id: int):
    if queued_by_another_member(request):
        # A photo queued on a shared phone by another member than the one signed in now: it stays on the phone.
        raise ChallengeError(MESSAGE_OTHER_MEMBER, code=DipRefusal.OTHER_MEMBER, status=409)
    upload_size_check(request)  # before the body is read
    if request.POST.get(PHOTO_AFTER_TAP_FIELD) == "1":
        return _photo_after_tap(request, dip_id)
    conditions = conditions_parse(request.POST)
    # The same limits as a new dip's photo: an upload budget per member and a bounded number of decodes.
    # Someone else's dip is answered like a missing one (DipNotFoundError, 404).
    photo = photo_from_request(request)
    dip = dip_details_update(user=request.user, dip_id=dip_id, conditions=conditions, photo=photo)
    share = share_photo_parse(request.POST)
    if share is not None:  # "Deel deze foto met de club", when the form sent it
        dip = dip_photo_share_set(user=request.user, dip_id=dip_id, share=share)
    return JsonResponse({"message": MESSAGE_DETAILS_SAVED, "dip": dip_payload(dip_signed_off(dip))})


def _photo_after_tap(request, dip_id: int) -> JsonResponse:
    photo = photo_from_request(request)  # the same checks, budget and pipeline as any dip's photo
    if photo is None:
        raise DomainError(MESSAGE_BAD_REQUEST, code=DipRefusal.BAD_REQUEST)
    outcome = dip_photo_add(
        user=request.user, dip_id=dip_id, photo=photo, share=share_photo_parse(request.POST) is True
    )
    message = MESSAGE_PHOTO_ADDED if outcome.added else MESSAGE_PHOTO_KEPT
    return JsonResponse({"message": message, "dip": dip_payload(dip_signed_off(outcome.dip))})


@json_endpoint
@member_required_json
@require_POST
def undo_dip(request, dip_id: int):
    outcome = dip_undo(user=request.user, dip_id=dip_id)
    # The card as it is now: the server says which dips, badges and completion remain (none for a dip that
    # had no card: it counted for club challenges only).
    card = outcome.user_challenge
    return JsonResponse({"message": MESSAGE_UNDONE, "card": stamp_card_props(card) if card is not None else None})
