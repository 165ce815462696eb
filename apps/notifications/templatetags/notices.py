"""The /account section Meldingen (`{% load notices %}{% notice_settings_section %}`) and the site's VAPID public
key for the script that re-sends a member's subscription when the app opens (`{% push_public_key %}`)."""

from django import template
from django.conf import settings

from ..selectors import latest_club_messages, notice_settings_for

register = template.Library()


@register.inclusion_tag("notifications/_account_notices.html", takes_context=True)
def notice_settings_section(context):
    request = context["request"]
    return {"notices": notice_settings_for(request.user), "csrf_token": context.get("csrf_token")}


@register.simple_tag
def push_public_key() -> str:
    return settings.VAPID_PUBLIC_KEY


@register.inclusion_tag("notifications/_club_messages.html")
def club_messages_block():
    """The latest club messages, on the dashboard (a page under the CLUB_MESSAGES scope)."""
    return {"club_messages": latest_club_messages()}
