"""/events, sign up (or wait), cancel, the calendar files.

Plain POST forms with redirect-after-post: no JavaScript needed.
"""

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.db.models import Q
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import member_required_action
from apps.core.numbers import whole_number
from apps.core.page_cache import EVENTS, PAGE_TIMEOUT, Page, cached_page

from .calendar_selectors import calendar_events_for_token
from .ics import event_ics, ics_filename, member_calendar_ics
from .links import PLANS_URL
from .models import CalendarFeed, Event
from .selectors import event_card_for, seconds_until_first_starts
from .series_selectors import series_state_for
from .services import (
    MESSAGE_CALENDAR_CREATED,
    MESSAGE_CALENDAR_RENEWED,
    MESSAGE_DUPLICATE,
    MESSAGE_FAILED,
    MESSAGE_JOINED,
    MESSAGE_LEFT,
    MESSAGE_OFFER_DECLINED,
    MESSAGE_OFFER_NONE,
    MESSAGE_OFFER_TAKEN,
    MESSAGE_SERIES_LEFT,
    MESSAGE_SERIES_NOT_MEMBER,
    MESSAGE_WAITLIST_LEFT,
    MESSAGE_WAITLISTED,
    EventAlreadyJoined,
    EventAlreadyWaitlisted,
    EventError,
    Left,
    OfferAnswer,
    calendar_feed_renew,
    event_leave,
    event_sign_up,
    series_join,
    series_leave,
    waitlist_offer_accept,
    waitlist_offer_decline,
)

logger = logging.getLogger(__name__)

# Where a sign-up form came from, so the member lands back on the same page (never an outside URL).
BACK_TARGETS = {"dashboard": "/dashboard#samen", "events": PLANS_URL, "account": "/account#agenda", "event": PLANS_URL}
EVENTS_ON_DASHBOARD = BACK_TARGETS["dashboard"]
# The answer to Aanmelden/Afmelden is shown in the events section, where the page lands (#events), not at
# the top of the page far out of view. The dashboard names this place in its `message_places`.
MESSAGE_PLACE = "events-section"


def _back(request):
    return redirect(BACK_TARGETS.get(request.POST.get("back", ""), EVENTS_ON_DASHBOARD))


def _say(request, level, text: str) -> None:
    messages.add_message(request, level, text, extra_tags=MESSAGE_PLACE)


@require_safe
def events_page(request):
    """/events was the list of events: it is one list with the plonsafspraken now (apps.together's /samen).
    A temporary redirect keeps old links and bookmarks working, with their query string (?pagina=); a
    browser keeps the #event-<id> of the old link, and the list's rows carry those ids."""
    query = request.META.get("QUERY_STRING", "")
    return HttpResponseRedirect(PLANS_URL + (f"?{query}" if query else ""))


@login_required
@require_safe
@cached_page(EVENTS, template="events/event.html")
def event_page(request, event_id: int):
    """One event with everyone who goes, by name. An afgelast event says so; one taken away otherwise is a 404."""
    card = event_card_for(request.user, event_id=event_id)
    if card is None or not (card.event.is_active or card.event.is_cancelled):
        raise Http404("Onbekend event")
    coming = card.event.event_date > timezone.now()
    valid_for = seconds_until_first_starts([card]) if coming else PAGE_TIMEOUT
    # Past or afgelast: the card without its Aanmelden/Afmelden forms.
    # A date of a weekly series: "Ik kom elke week" / "Ik stop met deze reeks" (events/_series_sign_up.html).
    series = series_state_for(request.user, event=card.event)
    # The replies below (apps.together's replies_section) show their answers beside their form; a series' in its
    # own section (#series).
    places = ("replies-section",) if series is None else ("replies-section", MESSAGE_PLACE)
    context = {
        "card": card,
        "past": card.event.is_cancelled or not coming,
        "series": series,
        "message_places": places,
    }
    return Page(context, valid_for=valid_for)


def _back_to_event(request):
    """Back to the date's page the series form was on (`event`), else where `back` says."""
    event_id = whole_number(request.POST.get("event"))
    if event_id is not None and request.POST.get("back") == "event":
        return redirect(reverse("event", args=[event_id]) + "#series")
    return _back(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def series_join_view(request, series_id: int):
    """ "Ik kom elke week": a sign-up for every coming date of the series (or its waitlist)."""
    try:
        joined = series_join(user=request.user, series_id=series_id)
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        logger.exception("series sign-up failed (series %s, user %s)", series_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        _say(request, messages.INFO if joined.already else messages.SUCCESS, joined.message())
    return _back_to_event(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def series_leave_view(request, series_id: int):
    """ "Ik stop met deze reeks": off every coming date of the series."""
    try:
        left = series_leave(user=request.user, series_id=series_id)
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        logger.exception("series leave failed (series %s, user %s)", series_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        if left is None:
            _say(request, messages.INFO, MESSAGE_SERIES_NOT_MEMBER)
        else:
            _say(request, messages.SUCCESS, MESSAGE_SERIES_LEFT)
    return _back_to_event(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def join(request, event_id: int):
    try:
        sign_up = event_sign_up(user=request.user, event_id=event_id)
    except (EventAlreadyJoined, EventAlreadyWaitlisted) as error:
        _say(request, messages.INFO, str(error))
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        # A lock timeout or a lost connection: the member gets the spec's generic message, we get the trace.
        logger.exception("event sign-up failed (event %s, user %s)", event_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        if sign_up.participant is not None:
            _say(request, messages.SUCCESS, MESSAGE_JOINED)
        else:
            _say(request, messages.INFO, MESSAGE_WAITLISTED.format(position=sign_up.waitlist_position))
    return _back(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def leave(request, event_id: int):
    try:
        left = event_leave(user=request.user, event_id=event_id)
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        logger.exception("event cancellation failed (event %s, user %s)", event_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        _say(request, messages.SUCCESS, MESSAGE_WAITLIST_LEFT if left == Left.WAITLIST else MESSAGE_LEFT)
    return _back(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def offer_accept(request, event_id: int):
    """'Ik kom' on a waitlist offer."""
    try:
        answer = waitlist_offer_accept(user=request.user, event_id=event_id)
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        logger.exception("waitlist offer accept failed (event %s, user %s)", event_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        _say(request, messages.SUCCESS, MESSAGE_OFFER_TAKEN if answer == OfferAnswer.TAKEN else MESSAGE_DUPLICATE)
    return _back(request)


@member_required_action(EVENTS_ON_DASHBOARD)
@require_POST
def offer_decline(request, event_id: int):
    """'Ik kan niet' on a waitlist offer: off the waitlist, the place goes to the next in line."""
    try:
        answer = waitlist_offer_decline(user=request.user, event_id=event_id)
    except EventError as error:
        _say(request, messages.ERROR, str(error))
    except DatabaseError:
        logger.exception("waitlist offer decline failed (event %s, user %s)", event_id, request.user.pk)
        _say(request, messages.ERROR, MESSAGE_FAILED)
    else:
        if answer is None:
            _say(request, messages.INFO, MESSAGE_OFFER_NONE)
        else:
            _say(request, messages.SUCCESS, MESSAGE_OFFER_DECLINED)
    return _back(request)


@login_required
@require_POST
def calendar_renew(request):
    # "The old link stops working" only when there was one: the first link is simply made.
    had_link = CalendarFeed.objects.filter(user=request.user).exists()
    calendar_feed_renew(user=request.user)
    messages.success(request, MESSAGE_CALENDAR_RENEWED if had_link else MESSAGE_CALENDAR_CREATED)
    return _back(request)


@require_safe
def calendar_feed(request, token: str):
    """The subscription itself: no session, the secret token in the URL is the access check."""
    found = calendar_events_for_token(token)
    if found is None:
        raise Http404("Onbekende agenda-link")
    _feed, events = found
    body = member_calendar_ics(events, url=request.build_absolute_uri(PLANS_URL))
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="koud-water-challenge.ics"'
    # A private calendar: no shared cache may keep it, and it is not a page to index.
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_safe
def ics(request, event_id: int):
    # An afgelast event still has its file (STATUS:CANCELLED), so a calendar that holds it can mark it off.
    event = get_object_or_404(Event.objects.filter(Q(is_active=True) | Q(cancelled_at__isnull=False)), pk=event_id)
    body = event_ics(event, url=request.build_absolute_uri(reverse("event", args=[event.pk])))
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{ics_filename(event)}"'
    return response
