import datetime
import uuid

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import MESSAGE_SESSION_EXPIRED, member_required_json

from ..photos import PhotoError, photo_process, too_large_message
from ..selectors import active_card_for, badge_payload, dip_payload, dutch_date, stamp_card_props
from ..services import ChallengeError, ChallengePermissionError, challenge_stop, dip_register

MESSAGE_ADDED = "Plons toegevoegd!"
MESSAGE_BADGE = "Badge verdiend: {name}!"
MESSAGE_WATERDIEREN_DONE = "Waterdieren Stempelkaart voltooid! Alle badges verzameld!"
MESSAGE_CHALLENGE_DONE = "Challenge voltooid! Je foto's en badges blijven bewaard."
MESSAGE_BAD_REQUEST = "Deze aanvraag klopt niet. Laad de pagina opnieuw en probeer het nog eens."
MESSAGE_STOPPED = "Challenge gestopt en volledig verwijderd!"
MESSAGE_STOP_FAILED = "Er ging iets mis bij het stoppen van de challenge."
# Room for the multipart envelope and the other fields around a photo at the limit.
UPLOAD_OVERHEAD_BYTES = 64 * 1024


@login_required
@require_safe
def challenge(request):
    card = active_card_for(request.user)
    if card is None:
        return redirect("dashboard")
    return render(request, "challenges/challenge.html", {"card": card, "stamp_card": stamp_card_props(card)})


@member_required_json
@require_POST
def register_dip(request):
    if int(request.META.get("CONTENT_LENGTH") or 0) > settings.PHOTO_MAX_BYTES + UPLOAD_OVERHEAD_BYTES:
        return JsonResponse({"error": too_large_message()}, status=413)
    upload = request.FILES.get("photo")
    try:
        request_id = _request_id(request.POST.get("request_id"))
        tapped_at = _tapped_at(request.POST.get("tapped_at"))
        user_challenge_id = _optional_id(request.POST.get("user_challenge_id"))
    except ValueError:
        return JsonResponse({"error": MESSAGE_BAD_REQUEST}, status=400)
    try:
        photo = photo_process(upload) if upload else None
        outcome = dip_register(
            user=request.user,
            photo=photo,
            request_id=request_id,
            tapped_at=tapped_at,
            user_challenge_id=user_challenge_id,
        )
    except (PhotoError, ChallengeError) as error:
        return JsonResponse({"error": str(error)}, status=400 if isinstance(error, PhotoError) else 409)

    toasts = [{"text": MESSAGE_ADDED, "durationMs": 3000}]
    celebration = None
    if outcome.badge is not None:
        toasts.append({"text": MESSAGE_BADGE.format(name=outcome.badge.name), "durationMs": 5000})
        celebration = "milestone"
    if outcome.completed:
        is_waterdieren = outcome.user_challenge.challenge.is_waterdieren
        toasts.append(
            {"text": MESSAGE_WATERDIEREN_DONE if is_waterdieren else MESSAGE_CHALLENGE_DONE, "durationMs": 10000}
        )
        celebration = "completion"
    card = outcome.user_challenge
    return JsonResponse(
        {
            "message": MESSAGE_ADDED,
            "dip": dip_payload(outcome.dip),
            "dipCount": outcome.dip_count,
            "completed": outcome.completed,
            "completedAt": card.completed_at.isoformat() if card.completed_at else None,
            "completedAtDisplay": dutch_date(card.completed_at) or None,
            "badge": badge_payload(outcome.badge, outcome.award) if outcome.badge else None,
            "celebration": celebration,
            "toasts": toasts,
        },
        status=200 if outcome.replayed else 201,
    )


def _request_id(value: str | None) -> uuid.UUID | None:
    if not value:
        return None
    return uuid.UUID(value)


def _tapped_at(value: str | None) -> datetime.datetime | None:
    """The moment a dip was tapped on the phone (ISO 8601 with its offset); the service decides if it counts."""
    if not value:
        return None
    moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("a tap time needs its offset")
    return moment


def _optional_id(value: str | None) -> int | None:
    if not value:
        return None
    number = int(value)
    if number <= 0:
        raise ValueError("not an id")
    return number


@require_POST
def stop(request):
    if not request.user.is_authenticated:
        # A stop from a page whose session ran out: say so, and come back to the stamp card after.
        messages.error(request, MESSAGE_SESSION_EXPIRED)
        return redirect_to_login(reverse("challenge"))
    try:
        challenge_stop(user=request.user, user_challenge_id=int(request.POST.get("user_challenge_id", "")))
    except ChallengePermissionError as error:
        messages.error(request, str(error))
        return redirect("dashboard")
    except (ValueError, ChallengeError):
        messages.error(request, MESSAGE_STOP_FAILED)
        return redirect("dashboard")
    messages.success(request, MESSAGE_STOPPED)
    return redirect("dashboard")
