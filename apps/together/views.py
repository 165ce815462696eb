"""/samen (plonsafspraken), the buddy answers on the dashboard, the tagging setting, /veilig and the
briefing's "Ik heb het gelezen". Plain POST forms with redirect-after-post, except the briefing (JSON, from
the stamp card)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import member_required_action, member_required_json
from apps.challenges.services.errors import ChallengeError
from apps.challenges.views.club import celebrate_dip
from apps.core.errors import json_endpoint
from apps.core.page_cache import EVENTS, TOGETHER, Page, cached_page
from apps.core.page_sections import lazy_value
from apps.events.calendar_selectors import club_life_settings_for
from apps.events.selectors import past_events_joined_by
from apps.events.views import MESSAGE_PLACE as EVENTS_MESSAGE_PLACE

from .forms import MeetupForm, parse_when
from .plans import digest, page_number, plan_list
from .reply_views import REPLIES_MESSAGE_PLACE
from .selectors import (
    buddy_candidates,
    buddy_tagger_name,
    meetup_card_for,
    seconds_until_page_changes,
    spot_suggestions,
)
from .services import (
    MEETUP_MAX_DAYS_AHEAD,
    MESSAGE_BRIEFING_READ,
    MESSAGE_BUDDY_ALREADY,
    MESSAGE_BUDDY_DECLINED,
    MESSAGE_BUDDY_ON_CARD,
    MESSAGE_CANCELLED,
    MESSAGE_JOINED,
    MESSAGE_LEFT,
    MESSAGE_PROPOSED,
    TogetherError,
    briefing_read,
    buddy_accept,
    buddy_decline,
    meetup_cancel,
    meetup_join,
    meetup_leave,
    meetup_propose,
    tagging_set,
)

SAMEN_URL = "/samen"
# Where a form came from, so the member lands back on the same place (never an outside URL).
BACK_TARGETS = {"samen": SAMEN_URL, "dashboard": "/dashboard#samen"}
BUDDIES_ON_DASHBOARD = "/dashboard#buddies"
ACCOUNT_SECTION = "/account#samen"
# The answers are shown in the section the member pressed in (the dashboard names these in message_places).
MESSAGE_PLACE = "together-section"
BUDDY_MESSAGE_PLACE = "buddies-section"
MESSAGE_TAGGING_ON = "Clubgenoten kunnen je nu taggen bij hun plons."
MESSAGE_TAGGING_OFF = "Niemand kan je nog taggen bij een plons."


def _say(request, level: int, text: str, place: str = MESSAGE_PLACE) -> None:
    messages.add_message(request, level, text, extra_tags=place)


def _back(request, meetup_id: int | None = None):
    if request.POST.get("back") == "meetup" and meetup_id is not None:
        return redirect(reverse("meetup", args=[meetup_id]))  # the afspraak's own page
    return redirect(BACK_TARGETS.get(request.POST.get("back", ""), SAMEN_URL))


PAGE_PARAMETER = "pagina"


def _page_context(request, *, form=None, errors=None) -> tuple[dict, float]:
    """The plan list (club events and plonsafspraken, soonest first) with the new-afspraak form, the calendar
    subscription and, on the first page, the events the member took part in. What only a section shows is
    lazy: a section served from the cache never reads it."""
    user = request.user
    plans = plan_list(user, number=page_number(request.GET.get(PAGE_PARAMETER)))
    context = {
        "plans": plans,
        "page_parameter": PAGE_PARAMETER,
        "spots": lazy_value(lambda: spot_suggestions(user)),
        "max_days": MEETUP_MAX_DAYS_AHEAD,
        "form": form or lazy_value(MeetupForm),
        "errors": errors or {},
        "club_life": lazy_value(lambda: club_life_settings_for(user, request=request)),
        # The member's history below the first page: one query, its section kept by what it lists.
        **(_history(user) if plans.number == 1 else {"past_events": None}),
        "message_places": (MESSAGE_PLACE, EVENTS_MESSAGE_PLACE),
    }
    return context, plans.valid_for


def _history(user) -> dict:
    cards = past_events_joined_by(user)
    shown: list[tuple] = [
        (card.event.pk, card.event.title, card.event.event_date, card.event.location) for card in cards
    ]
    shown += [(card.event.description, card.participant_count, card.guest_count) for card in cards]
    shown += [(card.event.max_participants, card.event.cancelled_at, card.event.cancel_reason) for card in cards]
    return {"past_events": cards, "history_version": digest(*shown)}


def _site(request) -> tuple:
    """The calendar link on the page is absolute: one page per address the site is reached at."""
    return (request.scheme, request.get_host())


@login_required
@require_safe
# The plan list shows both the club's events (any sign-up moves their counts) and the plonsafspraken.
@cached_page(EVENTS, TOGETHER, template="together/samen.html", query=[PAGE_PARAMETER], vary=_site)
def samen(request):
    context, valid_for = _page_context(request)
    return Page(context, valid_for=valid_for)


@login_required
@require_safe
@cached_page(TOGETHER, template="together/meetup.html")
def meetup_page(request, meetup_id: int):
    """One afspraak: when and where, who goes, Ik ga mee or Toch niet, and the replies with their form. A
    cancelled one says so (and takes no more replies); one that does not exist is a 404."""
    card = meetup_card_for(request.user, meetup_id)
    if card is None:
        raise Http404("Onbekende plonsafspraak")
    context = {"card": card, "message_places": (MESSAGE_PLACE, REPLIES_MESSAGE_PLACE)}
    return Page(context, valid_for=seconds_until_page_changes(card))


@member_required_action(SAMEN_URL)
@require_POST
def propose(request):
    form = MeetupForm(request.POST)
    form.is_valid()
    data = form.cleaned_data
    try:
        meetup_propose(
            user=request.user,
            starts_at=parse_when(request.POST.get("starts_at")),
            place=data.get("place") or "",
            note=data.get("note") or "",
        )
    except TogetherError as error:
        context, _ = _page_context(request, form=form, errors=error.fields or {"form": str(error)})
        return render(request, "together/samen.html", context, status=400)
    _say(request, messages.SUCCESS, MESSAGE_PROPOSED)
    return redirect(SAMEN_URL)


@member_required_action(SAMEN_URL)
@require_POST
def join(request, meetup_id: int):
    try:
        meetup_join(user=request.user, meetup_id=meetup_id)
    except TogetherError as error:
        _say(request, messages.ERROR, str(error))
    else:
        _say(request, messages.SUCCESS, MESSAGE_JOINED)
    return _back(request, meetup_id)


@member_required_action(SAMEN_URL)
@require_POST
def leave(request, meetup_id: int):
    try:
        meetup_leave(user=request.user, meetup_id=meetup_id)
    except TogetherError as error:
        _say(request, messages.ERROR, str(error))
    else:
        _say(request, messages.SUCCESS, MESSAGE_LEFT)
    return _back(request, meetup_id)


@member_required_action(SAMEN_URL)
@require_POST
def cancel(request, meetup_id: int):
    try:
        meetup_cancel(user=request.user, meetup_id=meetup_id)
    except TogetherError as error:
        _say(request, messages.ERROR, str(error))
    else:
        _say(request, messages.SUCCESS, MESSAGE_CANCELLED)
    return _back(request, meetup_id)


@member_required_action(BUDDIES_ON_DASHBOARD)
@require_POST
def buddy_yes(request, tag_id: int):
    """ "Zet op mijn kaart"."""
    try:
        outcome = buddy_accept(user=request.user, tag_id=tag_id)
    except (TogetherError, ChallengeError) as error:
        _say(request, messages.ERROR, str(error), BUDDY_MESSAGE_PLACE)
    else:
        said = MESSAGE_BUDDY_ON_CARD
        if outcome.confirmed:
            said = MESSAGE_BUDDY_ALREADY.format(name=buddy_tagger_name(user=request.user, tag_id=tag_id))
        _say(request, messages.SUCCESS, said, BUDDY_MESSAGE_PLACE)
        # What the stamp card would have celebrated (the badge this dip earned, the completed card, a club
        # challenge): its messages, and the celebration the dashboard plays on the member's next view.
        celebrate_dip(request, outcome)
    return redirect(BUDDIES_ON_DASHBOARD)


@member_required_action(BUDDIES_ON_DASHBOARD)
@require_POST
def buddy_no(request, tag_id: int):
    """ "Klopt niet"."""
    try:
        buddy_decline(user=request.user, tag_id=tag_id)
    except TogetherError as error:
        _say(request, messages.ERROR, str(error), BUDDY_MESSAGE_PLACE)
    else:
        _say(request, messages.SUCCESS, MESSAGE_BUDDY_DECLINED, BUDDY_MESSAGE_PLACE)
    return redirect(BUDDIES_ON_DASHBOARD)


@member_required_action(ACCOUNT_SECTION)
@require_POST
def tagging(request):
    allowed = request.POST.get("tagging_allowed") == "on"
    tagging_set(user=request.user, allowed=allowed)
    messages.success(request, MESSAGE_TAGGING_ON if allowed else MESSAGE_TAGGING_OFF)
    return redirect(ACCOUNT_SECTION)


@login_required
@require_safe
@cached_page(template="together/veilig.html")
def veilig(request):
    """The same plain text for every member, in the member's header (the Admin button, the sign-out form):
    rendered once per member and release, served from the page cache after that. No shared scope: no write
    changes it, only a deploy (the release is in every key) and the club's settings read from the environment."""
    return Page({"shore_notice_minutes": settings.SHORE_NOTICE_MINUTES})


@json_endpoint
@member_required_json
@require_safe
def candidates(request):
    """ "Met wie?": the clubmates the member may name on a dip, those of today's afspraak and those swum with
    before first. Private to the session, never stored by a shared cache."""
    response = JsonResponse({"candidates": buddy_candidates(request.user)})
    response["Cache-Control"] = "private, no-store"
    return response


@json_endpoint
@member_required_json
@require_POST
def briefing(request):
    """ "Ik heb het gelezen" on the stamp card's season briefing."""
    read_on = briefing_read(user=request.user)
    return JsonResponse({"read_on": read_on.isoformat(), "message": MESSAGE_BRIEFING_READ})
