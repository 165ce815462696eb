from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import DASHBOARD_URL, member_required_action
from apps.events.selectors import upcoming_events_for
from apps.events.views import MESSAGE_PLACE as EVENTS_MESSAGE_PLACE

from ..selectors import dashboard_for
from ..services import MESSAGE_CHALLENGE_UNAVAILABLE, ChallengeError, challenge_start

MESSAGE_STARTED = "Challenge gestart!"


@login_required
@require_safe
def dashboard(request):
    return render(
        request,
        "challenges/dashboard.html",
        {
            "dashboard": dashboard_for(request.user),
            "upcoming_events": upcoming_events_for(request.user),
            "message_places": (EVENTS_MESSAGE_PLACE,),
        },
    )


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
