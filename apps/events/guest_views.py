"""The public guest pages: sign up as a guest through an event's shared link (no account), confirm the address
and cancel through the signed links in the mail. No session needed; a wrong token is a 404."""

import logging
from typing import Any

from allauth.core import ratelimit
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from .forms import GuestSignUpForm
from .links import guest_link_url
from .models import Event
from .notices import guest_cancel_token, guest_from_cancel_token, guest_from_confirm_token
from .selectors import guest_places_left
from .services import (
    MESSAGE_FAILED,
    MESSAGE_GUEST_ALREADY_CONFIRMED,
    MESSAGE_GUEST_CANCELLED,
    MESSAGE_GUEST_CLOSED,
    MESSAGE_GUEST_CONFIRMED,
    MESSAGE_GUEST_LINK_GONE,
    MESSAGE_GUEST_SIGNED_UP,
    MESSAGE_INACTIVE,
    MESSAGE_PAST,
    SAFETY_TEXT,
    EventError,
    GuestConfirmed,
    guest_cancel,
    guest_confirm,
    guest_event_for_token,
    guest_sign_up,
)

logger = logging.getLogger(__name__)

# apps.accounts.views.auth says the same for too many sign-in attempts.
MESSAGE_TOO_MANY_REQUESTS = "Te veel pogingen achter elkaar. Wacht een minuut en probeer het dan opnieuw."
RATE_LIMIT_ACTION = "event_guest"


def _closed_reason(event) -> str | None:
    if not event.is_active:
        return MESSAGE_INACTIVE
    if event.event_date < timezone.now():
        return MESSAGE_PAST
    return None


def _private(response):
    # A page for whoever holds the link: no shared cache keeps it, no search engine lists it.
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    # The token never leaves for another site; same-origin still lets the form send its Origin for CSRF.
    response["Referrer-Policy"] = "same-origin"
    return response


def _page(request, event, *, form, error: str = "", done: str = "", status: int = 200):
    context = {
        "event": event,
        "form": form,
        "error": error,
        "done": done,
        "closed": _closed_reason(event),
        "places_left": guest_places_left(event),
        "safety_text": SAFETY_TEXT,
    }
    return _private(render(request, "events/guest_sign_up.html", context, status=status))


@require_http_methods(["GET", "HEAD", "POST"])
def guest_sign_up_page(request, token: str):
    event = guest_event_for_token(token)
    if event is None:
        raise Http404("Onbekende gastenlink")
    if request.method != "POST":
        return _page(request, event, form=GuestSignUpForm())
    form = GuestSignUpForm(data=request.POST)
    if not ratelimit.consume(request, action=RATE_LIMIT_ACTION):
        return _page(request, event, form=form, error=MESSAGE_TOO_MANY_REQUESTS, status=429)
    # Refusals answer 200 with the message beside the form, as /auth does (a 4xx is an error in the browser's console).
    if not form.is_valid():  # only shapes: the fields are all optional strings and a checkbox
        return _page(request, event, form=form)
    try:
        guest_sign_up(
            token=token,
            name=form.cleaned_data["name"],
            email=form.cleaned_data["email"],
            safety_agreed=form.cleaned_data["safety_agreed"],
        )
    except ValidationError as exc:
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return _page(request, event, form=form)
    except EventError as error:
        return _page(request, event, form=form, error=str(error))
    except DatabaseError:
        logger.exception("guest sign-up failed (event %s)", event.pk)
        return _page(request, event, form=form, error=MESSAGE_FAILED, status=503)
    # The same answer for every address: a member's address gets no link to confirm, the member a mail.
    done = MESSAGE_GUEST_SIGNED_UP.format(minutes=settings.GUEST_CONFIRM_MINUTES)
    return _page(request, event, form=GuestSignUpForm(), done=done)


def _sign_up_again_url(event: Event | None) -> str:
    """The event's guest page, while it takes guests: where a link whose sign-up has gone sends the visitor."""
    if event is None or not event.open_for_guests or not event.guest_token or _closed_reason(event):
        return ""
    return guest_link_url(event)


@require_http_methods(["GET", "HEAD", "POST"])
def guest_confirm_page(request, token: str):
    """The link in the guest's first mail. GET asks (a mail scanner that follows the link confirms nothing);
    POST confirms. A second tap says it was done already; a link whose sign-up has gone says so."""
    link = guest_from_confirm_token(token)
    if link is None:
        raise Http404("Onbekende bevestigingslink")
    guest = link.guest
    if guest is None:
        event = Event.objects.filter(pk=link.event_id).first()
        gone = {"event": event, "gone": MESSAGE_GUEST_LINK_GONE, "again_url": _sign_up_again_url(event)}
        return _private(render(request, "events/guest_confirm.html", gone))
    context: dict[str, Any] = {"guest": guest, "event": guest.event, "error": "", "done": "", "cancel_url": ""}
    if guest.confirm_by is None:
        context["done"] = MESSAGE_GUEST_ALREADY_CONFIRMED
    elif request.method == "POST":
        if not ratelimit.consume(request, action=RATE_LIMIT_ACTION):
            context["error"] = MESSAGE_TOO_MANY_REQUESTS
            return _private(render(request, "events/guest_confirm.html", context, status=429))
        try:
            outcome = guest_confirm(guest_id=guest.pk)
        except EventError as error:
            context["error"] = str(error)
            return _private(render(request, "events/guest_confirm.html", context))
        except DatabaseError:
            logger.exception("guest confirmation failed (guest %s)", guest.pk)
            context["error"] = MESSAGE_FAILED
            return _private(render(request, "events/guest_confirm.html", context, status=503))
        if outcome is None:
            context |= {"gone": MESSAGE_GUEST_LINK_GONE, "again_url": _sign_up_again_url(guest.event)}
            return _private(render(request, "events/guest_confirm.html", context))
        context["done"] = (
            MESSAGE_GUEST_CONFIRMED if outcome == GuestConfirmed.CONFIRMED else MESSAGE_GUEST_ALREADY_CONFIRMED
        )
    if context["done"]:
        context["cancel_url"] = reverse("event_guest_cancel", args=[guest_cancel_token(guest)])
    return _private(render(request, "events/guest_confirm.html", context))


@require_http_methods(["GET", "HEAD", "POST"])
def guest_cancel_page(request, token: str):
    """GET asks (a mail scanner that follows the link cancels nothing); POST cancels."""
    guest = guest_from_cancel_token(token)
    if guest is None:
        raise Http404("Onbekende afmeldlink")
    context = {"guest": guest, "event": guest.event, "error": "", "done": ""}
    if request.method == "POST":
        if not ratelimit.consume(request, action=RATE_LIMIT_ACTION):
            context["error"] = MESSAGE_TOO_MANY_REQUESTS
            return _private(render(request, "events/guest_cancel.html", context, status=429))
        try:
            guest_cancel(guest_id=guest.pk)
        except EventError as error:
            context["error"] = str(error)
            return _private(render(request, "events/guest_cancel.html", context))
        except DatabaseError:
            logger.exception("guest cancellation failed (guest %s)", guest.pk)
            context["error"] = MESSAGE_FAILED
            return _private(render(request, "events/guest_cancel.html", context, status=503))
        context["done"] = MESSAGE_GUEST_CANCELLED
    elif not guest.event.open_for_guests:
        context["note"] = MESSAGE_GUEST_CLOSED
    return _private(render(request, "events/guest_cancel.html", context))
