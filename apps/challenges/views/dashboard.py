from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import DASHBOARD_URL, member_required_action
from apps.core.page_cache import CATALOGUE, EVENTS, Page, cached_page
from apps.events.selectors import seconds_until_first_starts, upcoming_events_for
from apps.events.views import MESSAGE_PLACE as EVENTS_MESSAGE_PLACE

from ..selectors import dashboard_for
from ..services.cards import MESSAGE_CHALLENGE_UNAVAILABLE, challenge_start
from ..services.errors import ChallengeError

MESSAGE_STARTED = "Challenge gestart!"


@login_required
@require_safe
# The member's cards and badges, the catalogue, and the events (any member's sign-up moves the counts).
@cached_page(CATALOGUE, EVENTS, template="challenges/dashboard.html")
def dashboard(request):
    user = request.user
    upcoming = upcoming_events_for(user)
    context = {
        "dashboard": dashboard_for(user),
        "upcoming_events": upcoming,
        "message_places": (EVENTS_MESSAGE_PLACE,),
    }
    return Page(context, valid_for=seconds_until_first_starts(upcoming))


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
