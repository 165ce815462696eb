"""The /account section of club life: `{% load club_life %}{% club_life_settings %}` brings its own data,
so the account page and its view need no change for it."""

from django import template

from ..calendar_selectors import club_life_settings_for

register = template.Library()


@register.inclusion_tag("events/_account_club_life.html", takes_context=True)
def club_life_settings(context):
    request = context["request"]
    return {
        "club_life": club_life_settings_for(request.user, request=request),
        "csrf_token": context.get("csrf_token"),
    }
