"""Addresses of an event's public guest pages, and of the plan list."""

from django.urls import reverse

from apps.notifications.links import absolute_url

from .models import Event

# The one list of plans (club events and plonsafspraken, apps.together's /samen): where /events leads, and
# where mails and notices about events send a member to.
PLANS_URL = "/samen"


def guest_link_url(event: Event, *, absolute: bool = False) -> str:
    """The link to share (WhatsApp): whoever has it may sign up as a guest while the event is open for guests."""
    path = reverse("event_guest_sign_up", args=[event.guest_token])
    return absolute_url(path) if absolute else path
