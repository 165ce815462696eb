"""Helpers for the tests of the plan list on /samen: times from now, a logged-in client, one row of the page."""

import datetime

from django.test import Client
from django.utils import timezone


def in_days(days: float, hours: float = 0) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days, hours=hours)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def plan_row(html: str, anchor: str) -> str:
    """The HTML of one row (its article, by its anchor) of a rendered plan list."""
    start = html.index(f'id="{anchor}"')
    return html[start : html.index("</article>", start)]
