from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import DASHBOARD_URL, member_required_action
from apps.core.page_cache import Page, cached_page, shared_versions
from apps.events.selectors import seconds_until_first_starts, upcoming_events_for
from apps.events.services import EVENTS
from apps.events.views import MESSAGE_PLACE as EVENTS_MESSAGE_PLACE

from ..selectors import dashboard_for
from ..services.cards import MESSAGE_CHALLENGE_UNAVAILABLE, challenge_start
from ..services.catalogue import CATALOGUE
from ..services.errors import ChallengeError

MESSAGE_STARTED = "Challenge gestart!"


@login_required
@require_safe
def dashboard(request):
    user = request.user

    def page() -> Page:
        upcoming = upcoming_events_for(user)
        context = {
            "dashboard": dashboard_for(user),
            "upcoming_events": upcoming,
            "message_places": (EVENTS_MESSAGE_PLACE,),
        }
        return Page(context, valid_for=seconds_until_first_starts(upcoming))

    # The member's cards and badges, the catalogue, and the events (any member's sign-up moves the counts).
    key = ("dashboard", user.pk, user.pages_version, *shared_versions(CATALOGUE, EVENTS))
    return cached_page(request, key=key, template="challenges/dashboard.html", page=page)


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
