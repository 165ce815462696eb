from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import DASHBOARD_URL, member_required_action
from apps.core.page_cache import (
    CATALOGUE,
    CLUB_CHALLENGES,
    CLUB_MESSAGES,
    EVENTS,
    TOGETHER,
    Page,
    cached_page,
    valid_until,
)
from apps.core.page_sections import lazy_value
from apps.events.selectors import open_offers_for
from apps.events.views import MESSAGE_PLACE as EVENTS_MESSAGE_PLACE

from ..selectors import dashboard_for
from ..services.cards import MESSAGE_CHALLENGE_UNAVAILABLE, challenge_start
from ..services.errors import ChallengeError
from .club import celebration_for, undo_offer_for

MESSAGE_STARTED = "Challenge gestart!"


def _today(request) -> tuple:
    return (timezone.localdate(),)


@login_required
@require_safe
# The member's cards and badges, the catalogue, the events (any member's sign-up moves the counts), the club
# messages, the club challenges (anyone joining or dipping moves a club goal), and the plonsafspraken of "Wie
# gaat er plonsen?" (apps.together's section); per day, as a challenge starts and ends.
@cached_page(
    CATALOGUE, EVENTS, CLUB_MESSAGES, CLUB_CHALLENGES, TOGETHER, template="challenges/dashboard.html", vary=_today
)
def dashboard(request):
    user = request.user
    context = {
        # Lazy: read only by the sections rendered anew (apps/core/page_sections.py). The plans ("Wie gaat er
        # plonsen?", events and afspraken) are apps.together's section, bringing its own data.
        "dashboard": dashboard_for(user),
        "open_offers": lazy_value(lambda: _open_offers(user)),
        # The plans' and Samen plonsen's sections show their answers in place (apps.together.views MESSAGE_PLACE and
        # BUDDY_MESSAGE_PLACE; challenges sits below together, so the names are written out here).
        "message_places": (EVENTS_MESSAGE_PLACE, "together-section", "buddies-section"),
        "celebration": celebration_for(request),
        "undo_dip_id": undo_offer_for(request),
    }
    return Page(context)


def _open_offers(user) -> list:
    """Her open waitlist offers; the page (and the section) is true until the first of them runs out."""
    offers = open_offers_for(user)
    if offers and offers[0].offer_expires_at is not None:
        valid_until(offers[0].offer_expires_at)
    return offers


@member_required_action(DASHBOARD_URL)
@require_POST
def start(request):
    try:
        challenge_id = int(request.POST.get("challenge_id", ""))
        challenge_start(user=request.user, challenge_id=challenge_id)
    except ValueError:
        messages.error(request, MESSAGE_CHALLENGE_UNAVAILABLE)
        return redirect("dashboard")
    except ChallengeError as error:
        messages.error(request, str(error))
        return redirect("dashboard")
    messages.success(request, MESSAGE_STARTED)
    return redirect("challenge")
