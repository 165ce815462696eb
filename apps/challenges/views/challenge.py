import datetime
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.accounts.access import member_required_action, member_required_json, queued_by_another_member
from apps.core.errors import DomainError, json_endpoint
from apps.core.numbers import whole_number
from apps.core.page_cache import CATALOGUE, TOGETHER, Page, cached_page

from ..card_payloads import dip_registered_payload, stamp_card_props
from ..conditions import conditions_parse
from ..photos import photo_from_request, upload_size_check
from ..refusals import DipRefusal
from ..selectors import active_card_for
from ..services.cards import MESSAGE_COMPLETED_KEPT, challenge_stop
from ..services.dip_rules import MESSAGE_NO_ACTIVE, dip_precheck
from ..services.dips import dip_register
from ..services.errors import ChallengeCompletedError, ChallengeError, ChallengePermissionError
from ..services.sharing import share_photo_parse
from ..upload_handlers import InterruptedUploadDetector, SkipFiles

MESSAGE_OTHER_MEMBER = "Deze plons is van iemand anders die hier eerder was ingelogd: hij wacht op die persoon."

MESSAGE_BAD_REQUEST = "Deze aanvraag klopt niet. Laad de pagina opnieuw en probeer het nog eens."
MESSAGE_STOPPED = "Challenge gestopt en volledig verwijderd!"
MESSAGE_STOP_FAILED = "Er ging iets mis bij het stoppen van de challenge."


@login_required
@require_safe
# TOGETHER: samen plonsen's part of the card offers those who went along with the member's afspraak.
@cached_page(CATALOGUE, TOGETHER, template="challenges/challenge.html")
def challenge(request):
    card = active_card_for(request.user)
    if card is None:
        return redirect("dashboard")
    return Page({"card": card, "stamp_card": stamp_card_props(card)})


@csrf_exempt  # checked by _register_dip_checked, after the refusals that need no body (see below)
@json_endpoint
@member_required_json
@require_POST
def register_dip(request):
    """Register a dip, optionally with a photo.

    Everything that refuses the dip without looking at the body comes first (signed in, size, an active
    card that is not done): reading and decoding a photo is the expensive part. CSRF is checked next,
    which reads the body; that is why this view installs its upload handlers before it.
    """
    if queued_by_another_member(request):
        # A tap queued on a shared phone by another member than the one signed in now: not theirs to send.
        # Refused before anything is read; the phone keeps the tap for its member's next session.
        raise ChallengeError(MESSAGE_OTHER_MEMBER, code=DipRefusal.OTHER_MEMBER, status=409)
    upload_size_check(request)
    precheck = dip_precheck(user=request.user)
    if not precheck.has_card:
        raise precheck.refusal or ChallengeError(MESSAGE_NO_ACTIVE, code=DipRefusal.NO_CARD)
    detector = InterruptedUploadDetector()
    if precheck.refusal is not None:
        request.upload_handlers = [SkipFiles()]
    else:
        request.upload_handlers.insert(0, detector)
    return _register_dip_checked(request, refusal=precheck.refusal, detector=detector)


@csrf_protect
def _register_dip_checked(request, *, refusal: ChallengeError | None, detector: InterruptedUploadDetector):
    try:
        request_id = _request_id(request.POST.get("request_id"))
        tapped_at = _tapped_at(request.POST.get("tapped_at"))
        user_challenge_id = _optional_id(request.POST.get("user_challenge_id"))
        buddy_ids = _buddy_ids(request.POST.getlist("buddies"))
    except ValueError as error:
        raise DomainError(MESSAGE_BAD_REQUEST, code=DipRefusal.BAD_REQUEST) from error
    conditions = conditions_parse(request.POST)
    photo = photo_from_request(request, detector=detector) if refusal is None else None
    # A refused card still goes through dip_register: a resend of a stored dip gets its answer back.
    outcome = dip_register(
        user=request.user,
        photo=photo,
        request_id=request_id,
        conditions=conditions,
        tapped_at=tapped_at,
        user_challenge_id=user_challenge_id,
        share_photo=photo is not None and share_photo_parse(request.POST) is True,  # only a photo is shared
        buddy_ids=buddy_ids,
    )
    return JsonResponse(dip_registered_payload(outcome), status=200 if outcome.replayed or outcome.confirmed else 201)


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


# More clubmates than any one dip has: a longer list is not a real request.
BUDDIES_MAX = 30


def _buddy_ids(values: list[str]) -> list[int]:
    """ "Met wie?": one `buddies` field per clubmate's id."""
    if len(values) > BUDDIES_MAX or sum(value.count(",") for value in values) > BUDDIES_MAX:
        raise ValueError("too many buddies")
    # A tap that waited on the phone keeps its fields as one value each: there the ids come comma-separated.
    ids = [_optional_id(part) for value in values for part in value.split(",")]
    return [buddy_id for buddy_id in ids if buddy_id is not None]


def _optional_id(value: str | None) -> int | None:
    if not value:
        return None
    number = whole_number(value)
    if not number:
        raise ValueError("not an id")
    return number


@member_required_action("/challenge")
@require_http_methods(["GET", "HEAD", "POST"])
def stop(request):
    """GET: the confirmation as a page of its own (the stamp card page opens it as a dialog when JavaScript
    runs). POST: stop, which deletes the card with its dips, photos and badges."""
    if request.method != "POST":
        card = active_card_for(request.user)
        if card is None:
            return redirect("dashboard")
        if card.is_completed:
            messages.info(request, MESSAGE_COMPLETED_KEPT)
            return redirect("challenge")
        return render(request, "challenges/stop_confirm.html", {"card": card})
    try:
        challenge_stop(user=request.user, user_challenge_id=int(request.POST.get("user_challenge_id", "")))
    except ChallengePermissionError as error:
        messages.error(request, str(error))
        return redirect("dashboard")
    except ChallengeCompletedError as error:
        messages.info(request, str(error))
        return redirect("challenge")
    except (ValueError, ChallengeError):
        messages.error(request, MESSAGE_STOP_FAILED)
        return redirect("dashboard")
    messages.success(request, MESSAGE_STOPPED)
    return redirect("dashboard")
