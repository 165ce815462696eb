"""Dated club challenges for members: "Doe mee", stop taking part, and "Plons registreren" for a member whose
dips count for club challenges only (no stamp card under way). Server forms: they work without JavaScript."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from apps.accounts.access import DASHBOARD_URL, member_required_action
from apps.core.numbers import whole_number

from ..card_payloads import MESSAGE_BADGE, MESSAGE_CHALLENGE_DONE, MESSAGE_CLUB_DONE, MESSAGE_WATERDIEREN_DONE
from ..models import Badge, ClubChallenge
from ..refusals import DipRefusal
from ..services.club_challenges import MESSAGE_UNKNOWN, club_challenge_join, club_challenge_leave
from ..services.dip_changes import dip_undo
from ..services.dips import DipOutcome, dip_register
from ..services.errors import ChallengeError

MESSAGE_JOINED = "Je doet mee met {name}!"
MESSAGE_ALREADY_JOINED = "Je doet al mee met {name}."
MESSAGE_LEFT = "Je doet niet meer mee met deze clubchallenge."
MESSAGE_DIP_ADDED = "Plons toegevoegd!"
MESSAGE_DIP_UNDONE = "Plons ongedaan gemaakt."
# The messages' tag that asks the dashboard for the completion celebration (the celebration island).
CELEBRATION_TAG = "celebration-completion"
# The same for a dip that reached the dashboard another way ("Zet op mijn kaart", apps.together): a milestone
# badge it earned on the stamp card, and the stamp card it completed.
CELEBRATION_BADGE_TAG = "celebration-badge"
CELEBRATION_CARD_TAG = "celebration-card"
# The tag of "Plons toegevoegd!" for a dip without a card: the dashboard offers to take it back (a page with
# messages is rendered for that one request, never cached, so the offer cannot outlive the moment).
UNDO_TAG = "dip-undo"

BACK = f"{DASHBOARD_URL}#clubchallenges"


def _back(request):
    """Back to the page the form was on: the dashboard, or another page of ours that offers "Doe mee" (the
    club page) and says so in `next`; never to another site."""
    target = request.POST.get("next", "")
    if target.startswith("/") and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(BACK)


def _challenge_id(request) -> int:
    number = whole_number(request.POST.get("club_challenge_id"))
    if number is None:
        raise ChallengeError(MESSAGE_UNKNOWN, code=DipRefusal.CLUB_CHALLENGE_UNKNOWN)
    return number


def _celebrate(request, completed) -> None:
    for challenge in completed:
        tags = f"{CELEBRATION_TAG} {CELEBRATION_TAG}-{challenge.pk}"
        messages.success(request, MESSAGE_CLUB_DONE.format(name=challenge.name), extra_tags=tags)


def celebrate_dip(request, outcome: DipOutcome) -> None:
    """What the stamp card would have celebrated for this dip, as messages the dashboard celebrates on the
    member's next view (`celebration_for`): the badge it earned, the card it completed, the club challenges
    it completed. Nothing for a dip that was already there (a replay)."""
    if outcome.replayed:
        return
    card = outcome.user_challenge
    if outcome.badge is not None:
        tags = f"{CELEBRATION_BADGE_TAG} {CELEBRATION_BADGE_TAG}-{outcome.badge.pk}"
        messages.success(request, MESSAGE_BADGE.format(name=outcome.badge.name), extra_tags=tags)
    if outcome.completed and card is not None:
        done = MESSAGE_WATERDIEREN_DONE if card.challenge.is_waterdieren else MESSAGE_CHALLENGE_DONE
        messages.success(request, done, extra_tags=f"{CELEBRATION_CARD_TAG} {CELEBRATION_CARD_TAG}-{card.pk}")
    _celebrate(request, outcome.club_completed)


def _tagged_ids(request, tag: str) -> list[int]:
    prefix = f"{tag}-"
    return [
        number
        for message in messages.get_messages(request)
        for part in (message.extra_tags or "").split()
        if part.startswith(prefix) and (number := whole_number(part.removeprefix(prefix))) is not None
    ]


def _badge_data(badge: Badge | None) -> dict | None:
    if badge is None:
        return None
    return {"name": badge.name, "milestone": badge.milestone_dips, "imageUrl": badge.image_src}


def celebration_for(request) -> dict | None:
    """The celebration the dashboard plays for this request's messages, as the celebration island reads it
    (CelebrationPageData), or None: a completion (a stamp card, with the badge its last dip earned, or a club
    challenge) outranks a milestone badge, as on the stamp card. A page with messages is never cached; the
    messages are read only when there are any, so the cached dashboard asks nothing more."""
    if not messages.get_messages(request):
        return None
    badge_ids = _tagged_ids(request, CELEBRATION_BADGE_TAG)
    badge = Badge.objects.filter(pk__in=badge_ids).order_by("-milestone_dips").first() if badge_ids else None
    if _tagged_ids(request, CELEBRATION_CARD_TAG):
        return {"kind": "completion", "badge": _badge_data(badge)}
    club_ids = _tagged_ids(request, CELEBRATION_TAG)
    challenge = ClubChallenge.objects.filter(pk__in=club_ids).order_by("-pk").first() if club_ids else None
    if challenge is not None:
        club_badge = {"name": challenge.name, "milestone": challenge.goal, "imageUrl": challenge.badge_image_src}
        return {"kind": "completion", "badge": club_badge}
    if badge is not None:
        return {"kind": "milestone", "badge": _badge_data(badge)}
    return None


@member_required_action(DASHBOARD_URL)
@require_POST
def join(request):
    try:
        outcome = club_challenge_join(user=request.user, club_challenge_id=_challenge_id(request))
    except ChallengeError as error:
        messages.error(request, str(error))
        return _back(request)
    name = outcome.entry.club_challenge.name
    if outcome.created:
        messages.success(request, MESSAGE_JOINED.format(name=name))
    else:
        messages.info(request, MESSAGE_ALREADY_JOINED.format(name=name))
    _celebrate(request, outcome.completed)
    return _back(request)


@member_required_action(DASHBOARD_URL)
@require_POST
def leave(request):
    try:
        club_challenge_leave(user=request.user, club_challenge_id=_challenge_id(request))
    except ChallengeError as error:
        messages.error(request, str(error))
        return _back(request)
    messages.success(request, MESSAGE_LEFT)
    return _back(request)


@member_required_action(DASHBOARD_URL)
@require_POST
def register_dip(request):
    """One tap on "Plons registreren" on the dashboard: the same service as the stamp card's, so a member
    with a card under way gets their dip on it (and the club challenges) here too."""
    try:
        outcome = dip_register(user=request.user)
    except ChallengeError as error:
        messages.error(request, str(error))
        return _back(request)
    tags = f"{UNDO_TAG} {UNDO_TAG}-{outcome.dip.pk}" if outcome.user_challenge is None else ""
    messages.success(request, MESSAGE_DIP_ADDED, extra_tags=tags)
    _celebrate(request, outcome.club_completed)
    return _back(request)


@member_required_action(DASHBOARD_URL)
@require_POST
def undo_dip(request):
    """Take back a mis-tap made on the dashboard: the same service and rules as the stamp card's undo (the
    latest dip, within the undo window; the card and the club challenges are recounted)."""
    try:
        dip_undo(user=request.user, dip_id=whole_number(request.POST.get("dip_id")) or 0)
    except ChallengeError as error:
        messages.error(request, str(error))
        return _back(request)
    messages.success(request, MESSAGE_DIP_UNDONE)
    return _back(request)


def undo_offer_for(request) -> int | None:
    """The dip without a card this request's "Plons toegevoegd!" is about: the dashboard offers its undo."""
    prefix = f"{UNDO_TAG}-"
    for message in messages.get_messages(request):
        for tag in (message.extra_tags or "").split():
            if tag.startswith(prefix) and (number := whole_number(tag.removeprefix(prefix))) is not None:
                return number
    return None
