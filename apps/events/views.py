"""Sign up, cancel and the calendar file. Plain POST forms with redirect-after-post: no JavaScript needed."""

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import member_required_action

from .ics import event_ics, ics_filename
from .models import Event
from .services import (
    MESSAGE_FAILED,
    MESSAGE_JOINED,
    MESSAGE_LEFT,
    EventAlreadyJoined,
    EventError,
    event_join,
    event_leave,
)

logger = logging.getLogger(__name__)


EVENTS_ON_DASHBOARD = "/dashboard#events"
# The answer to Aanmelden/Afmelden is shown in the events section, where the page lands (#events), not at
# the top of the page far out of view. The dashboard names this place in its `message_places`.
MESSAGE_PLACE = "events-section"


def _back_to_events():
    return redirect(EVENTS_ON_DASHBOARD)


def _change_sign_up(request, event_id: int, *, change, done: str, what: str):
    """Sign up or cancel through the service, and tell the member how it went."""
    try:
        change(user=request.user, event_id=event_id)
    except EventAlreadyJoined as error:
        messages.info(request, str(error), extra_tags=MESSAGE_PLACE)
    except EventError as error:
        messages.error(request, str(error), extra_tags=MESSAGE_PLACE)
    except DatabaseError:
        # A lock timeout or a lost connection: the member gets the spec's generic message, we get the trace.
        logger.exception("event %s failed (event %s, user %s)", what, event_id, request.user.pk)
        messages.error(request, MESSAGE_FAILED, extra_tags=MESSAGE_PLACE)
    else:
        messages.success(request, done, extra_tags=MESSAGE_PLACE)
    return _back_to_events()


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def join(request, event_id: int):
    return _change_sign_up(request, event_id, change=event_join, done=MESSAGE_JOINED, what="sign-up")


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def leave(request, event_id: int):
    return _change_sign_up(request, event_id, change=event_leave, done=MESSAGE_LEFT, what="cancellation")


@login_required
@require_safe
def ics(request, event_id: int):
    event = get_object_or_404(Event, pk=event_id, is_active=True)
    body = event_ics(event, url=request.build_absolute_uri(reverse("dashboard") + "#events"))
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{ics_filename(event)}"'
    return response
