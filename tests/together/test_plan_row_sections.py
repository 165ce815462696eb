"""The plan list's rows as cached sections (`{% cached_each "plan-row" "member" ... by row.version %}` on /samen):
each row is kept by a version of all it shows, her own place in it included, so a write renders only the rows it
changed, and a row always shows what a fresh rendering shows, for her and for every other member."""

import re

import pytest
from django.core.cache import caches
from django.test import Client
from django.test.signals import template_rendered

from apps.events.models import EventWaitlistEntry
from apps.events.services import event_cancel, event_leave, event_sign_up, series_join, waitlist_offer_accept
from apps.together.services import meetup_join, meetup_leave
from tests.factories import EventFactory, EventSeriesFactory, MeetupFactory, UserFactory
from tests.together.plans import in_days, logged_in, plan_row

pytestmark = pytest.mark.django_db

ROW = "together/_plan_row.html"


class Visits:
    """/samen as a member sees it, with the number of rows rendered (not from the cache) for that visit."""

    def __init__(self):
        self.rendered: list[str] = []

    def _seen(self, sender, template, **kwargs):
        self.rendered.append(template.name)

    def get(self, client: Client) -> tuple[str, int]:
        self.rendered.clear()
        template_rendered.connect(self._seen)
        try:
            response = client.get("/samen")
        finally:
            template_rendered.disconnect(self._seen)
        assert response.status_code == 200
        return response.content.decode(), self.rendered.count(ROW)


@pytest.fixture
def visits():
    caches["pages"].clear()
    return Visits()


@pytest.fixture
def plans():
    """Three events and an afspraak: the rows a write must leave alone."""
    events = [EventFactory(title=f"Duik {n}", event_date=in_days(1 + n), max_participants=2) for n in range(3)]
    meetup = MeetupFactory(starts_at=in_days(1, hours=2), place="Sloterplas")
    return events, meetup


def test_her_sign_up_and_leaving_render_only_that_row_and_show_her_place(member, visits, plans):
    events, _meetup = plans
    client = logged_in(member)
    visits.get(client)  # every row in the cache
    event_sign_up(user=member, event_id=events[1].pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{events[1].pk}")
    assert "Je bent aangemeld" in row and "1 / 2 deelnemers" in row and member.display_name in row
    assert f'action="/events/{events[1].pk}/afmelden"' in row
    event_leave(user=member, event_id=events[1].pk)
    html, rendered = visits.get(client)
    assert rendered == 0  # the row shows what it showed before her sign-up: that section again
    row = plan_row(html, f"event-{events[1].pk}")
    assert "Je bent aangemeld" not in row and "0 / 2 deelnemers" in row and "Aanmelden" in row


def test_one_members_place_is_never_shown_to_another(member, other_member, visits, plans):
    events, meetup = plans
    mine, theirs = logged_in(member), logged_in(other_member)
    visits.get(mine), visits.get(theirs)
    event_sign_up(user=member, event_id=events[0].pk)
    meetup_join(user=member, meetup_id=meetup.pk)
    html, _rendered = visits.get(theirs)
    assert "Je bent aangemeld" not in html and "Je gaat mee" not in html
    assert "1 / 2 deelnemers" in plan_row(html, f"event-{events[0].pk}")  # the count, for everyone
    assert "Aanmelden" in plan_row(html, f"event-{events[0].pk}")
    assert "Ik ga mee" in plan_row(html, f"afspraak-{meetup.pk}")
    html, _rendered = visits.get(mine)
    assert "Je bent aangemeld" in plan_row(html, f"event-{events[0].pk}")
    assert "Je gaat mee" in plan_row(html, f"afspraak-{meetup.pk}")


def test_another_members_sign_up_moves_the_count_and_names_of_that_row(member, other_member, visits, plans):
    events, _meetup = plans
    client = logged_in(member)
    visits.get(client)
    event_sign_up(user=other_member, event_id=events[2].pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{events[2].pk}")
    assert "1 / 2 deelnemers" in row and f"Wie gaan er: {other_member.display_name}" in row


def test_a_waitlist_place_and_its_offer_render_the_row_with_her_state(member, visits, plans):
    events, _meetup = plans
    full = events[0]
    first, second = UserFactory(), UserFactory()
    event_sign_up(user=first, event_id=full.pk)
    event_sign_up(user=second, event_id=full.pk)
    client = logged_in(member)
    html, _rendered = visits.get(client)
    assert "Zet me op de wachtlijst" in plan_row(html, f"event-{full.pk}")
    event_sign_up(user=member, event_id=full.pk)  # the waitlist
    html, rendered = visits.get(client)
    assert rendered == 1
    assert "Je staat op de wachtlijst (plek 1)" in plan_row(html, f"event-{full.pk}")
    event_leave(user=first, event_id=full.pk)  # her offer
    assert EventWaitlistEntry.objects.get(event=full, user=member).offer_expires_at is not None
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{full.pk}")
    assert "Plek vrij" in row and "Ik kom" in row and "Ik kan niet" in row
    waitlist_offer_accept(user=member, event_id=full.pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    assert "Je bent aangemeld" in plan_row(html, f"event-{full.pk}")


def test_a_cancellation_strikes_the_row_through(member, visits, plans):
    events, _meetup = plans
    client = logged_in(member)
    visits.get(client)
    event_cancel(event_id=events[1].pk, reason="Te veel wind")
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{events[1].pk}")
    assert "<del>Duik 1</del>" in row and "Afgelast: Te veel wind" in row and "<form" not in row


def test_a_date_of_a_series_afgelast_or_skipped_renders_the_series_row(member, visits):
    series = EventSeriesFactory()
    first, second, third = (EventFactory(series=series, event_date=in_days(1 + 7 * week)) for week in range(3))
    client = logged_in(member)
    series_join(user=member, series_id=series.pk)
    html, _rendered = visits.get(client)
    assert "Je bent aangemeld" in plan_row(html, f"event-{first.pk}")
    event_cancel(event_id=third.pk, reason="Storm op zee")
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{first.pk}")
    assert re.search(r"<del><time[^>]*>[^<]+</time></del> <span>Afgelast: Storm op zee</span>", row)
    event_leave(user=member, event_id=first.pk)  # she skips the next date: still a member of the series
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{first.pk}")
    assert "Je bent aangemeld" not in row and "Aanmelden" in row
    assert f'href="/events/{second.pk}"' in row


def test_joining_and_leaving_an_afspraak_render_only_its_row(member, other_member, visits, plans):
    _events, meetup = plans
    client = logged_in(member)
    visits.get(client)
    meetup_join(user=member, meetup_id=meetup.pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"afspraak-{meetup.pk}")
    assert "Je gaat mee" in row and member.display_name in row and "Toch niet" in row
    meetup_join(user=other_member, meetup_id=meetup.pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    assert other_member.display_name in plan_row(html, f"afspraak-{meetup.pk}")
    meetup_leave(user=member, meetup_id=meetup.pk)
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"afspraak-{meetup.pk}")
    assert "Je gaat mee" not in row and member.display_name not in row and "Ik ga mee" in row
