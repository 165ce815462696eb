"""One place to plan (issue 34 §4): club events and plonsafspraken in one list on /samen, soonest first, with
who goes and one tap to go along; a weekly series as one row; an afgelast date struck through with its reason;
/events leads there; the dashboard's one block; a fixed number of queries at any size."""

import datetime
import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.events.models import EventParticipant, EventWaitlistEntry
from apps.events.services import event_cancel, event_sign_up
from apps.together.models import MeetupParticipant
from apps.together.plans import PLANS_PER_PAGE, page_number, plan_list
from apps.together.services import meetup_propose
from tests.factories import (
    AdminFactory,
    EventFactory,
    EventSeriesFactory,
    MeetupFactory,
    UserFactory,
)
from tests.together.plans import in_days, logged_in, plan_row

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def _rows(html: str) -> list[str]:
    """The ids of the plan list's rows, in page order."""
    return re.findall(r'<article class="event-card plan-row[^"]*" id="([a-z]+-\d+)"', html)


def test_events_and_afspraken_in_one_list_soonest_first(member_client):
    later = EventFactory(title="Nieuwjaarsduik", event_date=in_days(3))
    sooner = MeetupFactory(starts_at=in_days(1), place="Sloterplas")
    between = EventFactory(title="Zondagduik", event_date=in_days(2))
    last = MeetupFactory(starts_at=in_days(4), place="IJ-haven")
    html = member_client.get("/samen").content.decode()
    assert '<h1 class="page-title">Wie gaat er plonsen?</h1>' in html
    assert _rows(html) == [f"afspraak-{sooner.pk}", f"event-{between.pk}", f"event-{later.pk}", f"afspraak-{last.pk}"]
    assert "Plonsafspraak maken" in html and 'action="/samen/nieuw"' in html  # the form stays on the page
    assert "Maak mijn agenda-link" in html  # and the calendar subscription


def test_each_row_says_who_goes(member_client, other_member):
    event = EventFactory(title="Zondagduik", event_date=in_days(2), max_participants=10)
    event_sign_up(user=other_member, event_id=event.pk)
    meetup = MeetupFactory(starts_at=in_days(1), proposer=UserFactory(full_name="Anna Voorsteller"))
    MeetupParticipant.objects.create(meetup=meetup, user=other_member)
    html = member_client.get("/samen").content.decode()
    assert "1 / 10 deelnemers" in plan_row(html, f"event-{event.pk}")
    assert f"Wie gaan er: {other_member.display_name}" in plan_row(html, f"event-{event.pk}")
    assert f"Gaan mee: Anna Voorsteller, {other_member.display_name}" in plan_row(html, f"afspraak-{meetup.pk}")


def test_one_tap_to_go_along_with_an_afspraak_and_back(member, member_client):
    meetup = MeetupFactory(starts_at=in_days(1))
    row = plan_row(member_client.get("/samen").content.decode(), f"afspraak-{meetup.pk}")
    assert f'action="/samen/{meetup.pk}/ik-ga-mee"' in row and "Ik ga mee" in row
    response = member_client.post(f"/samen/{meetup.pk}/ik-ga-mee", {"back": "samen"}, follow=True)
    assert response.redirect_chain[-1][0] == "/samen"
    html = response.content.decode()
    assert "Je gaat mee!" in html
    row = plan_row(html, f"afspraak-{meetup.pk}")
    assert "Je gaat mee" in row and f'action="/samen/{meetup.pk}/toch-niet"' in row and "Toch niet" in row
    assert MeetupParticipant.objects.filter(meetup=meetup, user=member).exists()


def test_one_tap_to_sign_up_for_an_event_and_back(member, member_client):
    event = EventFactory(event_date=in_days(2), max_participants=5)
    row = plan_row(member_client.get("/samen").content.decode(), f"event-{event.pk}")
    assert f'action="/events/{event.pk}/aanmelden"' in row and "Aanmelden" in row
    response = member_client.post(f"/events/{event.pk}/aanmelden", {"back": "events"}, follow=True)
    assert response.redirect_chain[-1][0] == "/samen"
    html = response.content.decode()
    assert "Je bent aangemeld" in html
    row = plan_row(html, f"event-{event.pk}")
    assert "Je bent aangemeld" in row and f'action="/events/{event.pk}/afmelden"' in row and "Afmelden" in row
    assert EventParticipant.objects.filter(event=event, user=member).exists()


def test_a_full_event_offers_the_waitlist_and_shows_the_place_in_it(member, member_client, other_member):
    event = EventFactory(event_date=in_days(2), max_participants=1)
    event_sign_up(user=other_member, event_id=event.pk)
    row = plan_row(member_client.get("/samen").content.decode(), f"event-{event.pk}")
    assert "· vol" in row and "Zet me op de wachtlijst" in row and "Aanmelden" not in row
    member_client.post(f"/events/{event.pk}/aanmelden", {"back": "events"})
    assert EventWaitlistEntry.objects.filter(event=event, user=member).exists()
    row = plan_row(member_client.get("/samen").content.decode(), f"event-{event.pk}")
    assert "Je staat op de wachtlijst (plek 1)" in row and "Van de wachtlijst af" in row


def test_a_weekly_series_is_one_row_with_its_next_date_and_its_dates(member_client):
    series = EventSeriesFactory()
    dates = [EventFactory(title="Zondagduik", series=series, event_date=in_days(1 + 7 * week)) for week in range(4)]
    past = EventFactory(title="Zondagduik", series=series, event_date=in_days(-6))
    html = member_client.get("/samen").content.decode()
    assert _rows(html) == [f"event-{dates[0].pk}"]  # one row, on its next date
    row = plan_row(html, f"event-{dates[0].pk}")
    assert "Elke week · volgende keer:" in row
    assert "Alle data (4)" in row
    for date in dates[1:]:
        assert f'href="/events/{date.pk}"' in row
    assert f'href="/events/{past.pk}"' not in row


def test_a_cancelled_date_of_a_series_is_struck_through_with_its_reason_and_the_row_moves_on(member_client):
    series = EventSeriesFactory()
    first, second, third = (EventFactory(series=series, event_date=in_days(1 + 7 * week)) for week in range(3))
    event_cancel(event_id=first.pk, reason="Storm op zee")
    html = member_client.get("/samen").content.decode()
    assert _rows(html) == [f"event-{second.pk}"]  # the next date that goes ahead
    row = plan_row(html, f"event-{second.pk}")
    assert re.search(r"<del><time[^>]*>[^<]+</time></del> <span>Afgelast: Storm op zee</span>", row)
    assert f'action="/events/{second.pk}/aanmelden"' in row
    assert f'href="/events/{third.pk}"' in row


def test_a_cancelled_event_stays_in_the_list_struck_through_without_a_sign_up(member_client):
    event = EventFactory(title="Maanduik", event_date=in_days(2))
    event_cancel(event_id=event.pk, reason="Te veel wind")
    row = plan_row(member_client.get("/samen").content.decode(), f"event-{event.pk}")
    assert "<del>Maanduik</del>" in row and "Afgelast: Te veel wind" in row
    assert "aanmelden" not in row and "<form" not in row


def test_a_waitlist_offer_on_a_later_date_of_a_series_gets_its_own_row(member, member_client):
    series = EventSeriesFactory()
    first, later = (
        EventFactory(series=series, event_date=in_days(1 + 7 * week), max_participants=1) for week in range(2)
    )
    EventWaitlistEntry.objects.create(
        event=later, user=member, offered_at=timezone.now(), offer_expires_at=timezone.now() + DAY
    )
    html = member_client.get("/samen").content.decode()
    assert _rows(html) == [f"event-{first.pk}", f"event-{later.pk}"]
    row = plan_row(html, f"event-{later.pk}")
    assert "Ik kom" in row and "Ik kan niet" in row


def test_events_redirects_to_the_list_with_its_query(member_client):
    response = member_client.get("/events")
    assert response.status_code == 302 and response["Location"] == "/samen"
    assert member_client.get("/events?pagina=2")["Location"] == "/samen?pagina=2"
    assert member_client.get("/events", follow=True).redirect_chain[-1] == ("/samen", 302)
    # Signed out: the list asks to sign in first, and lands there after.
    response = Client().get("/events", follow=True)
    assert response.redirect_chain[-1][0].startswith("/auth?next=/samen")


def test_the_event_pages_stay(member_client):
    event = EventFactory(title="Zondagduik", event_date=in_days(2))
    assert member_client.get(f"/events/{event.pk}").status_code == 200


def test_the_list_is_for_members_only(client):
    response = client.get("/samen")
    assert response.status_code == 302 and response["Location"].startswith("/auth?next=/samen")


def test_pages_of_plans(member_client):
    for number in range(PLANS_PER_PAGE + 3):
        EventFactory(title=f"Duik {number:02d}", event_date=in_days(1, hours=number))
    first = member_client.get("/samen").content.decode()
    assert len(_rows(first)) == PLANS_PER_PAGE and "Meer plannen" in first and "Eerdere plannen" not in first
    second = member_client.get("/samen?pagina=2").content.decode()
    assert len(_rows(second)) == 3 and "Eerdere plannen" in second and "Meer plannen" not in second
    assert "Events waar je aan meedeed" in first and "Events waar je aan meedeed" not in second
    assert set(_rows(first)).isdisjoint(_rows(second))
    assert _rows(member_client.get("/samen?pagina=abc").content.decode()) == _rows(first)
    assert _rows(member_client.get("/samen?pagina=7").content.decode()) == _rows(second)  # the last there is


@pytest.mark.parametrize(("asked", "page"), [(None, 1), ("", 1), ("0", 1), ("2", 2), ("x", 1), ("٣", 1), ("999", 10)])
def test_page_numbers_from_the_query_string(asked, page):
    assert page_number(asked) == page


def test_the_tab_bar_has_five_tabs_and_samen_is_current_on_the_list_and_an_event(member_client):
    event = EventFactory(event_date=in_days(2))
    for path in ("/samen", f"/events/{event.pk}"):
        nav = member_client.get(path).content.decode().split('<nav class="app-nav"', 1)[1].split("</nav>", 1)[0]
        assert nav.count('class="app-nav__link"') == 5
        assert "Events" not in nav
        assert re.search(r'href="/samen" aria-current="page"', nav)


def test_the_dashboard_has_one_block_of_the_next_plans(member_client):
    meetup = MeetupFactory(starts_at=in_days(1), place="Sloterplas")
    events = [EventFactory(title=f"Duik {n}", event_date=in_days(2 + n)) for n in range(3)]
    html = member_client.get("/dashboard").content.decode()
    assert html.count("Wie gaat er plonsen?") == 1 and "Eerstvolgende events" not in html
    block = html[html.index('id="samen"') :]
    assert _rows(block)[:3] == [f"afspraak-{meetup.pk}", f"event-{events[0].pk}", f"event-{events[1].pk}"]
    assert f"event-{events[2].pk}" not in block
    assert 'href="/samen"' in block and '<input type="hidden" name="back" value="dashboard">' in block
    response = _client_post_back(member_client, f"/events/{events[0].pk}/aanmelden")
    assert response.redirect_chain[-1][0] == "/dashboard#samen"
    assert "Je bent aangemeld" in response.content.decode()


def _client_post_back(client, url):
    return client.post(url, {"back": "dashboard"}, follow=True)


def test_rows_come_from_the_cache_and_a_sign_up_renders_only_its_own_row(member, member_client):
    events = [EventFactory(title=f"Duik {n}", event_date=in_days(1 + n), max_participants=9) for n in range(3)]
    MeetupFactory(starts_at=in_days(1, hours=2))
    caches["pages"].clear()
    member_client.get("/samen")  # the page and its rows in the cache
    rendered: list[str] = []

    def seen(sender, template, **kwargs):
        rendered.append(template.name)

    template_rendered.connect(seen)
    try:
        event_sign_up(user=UserFactory(), event_id=events[1].pk)
        html = member_client.get("/samen").content.decode()
        assert "1 / 9 deelnemers" in plan_row(html, f"event-{events[1].pk}")
        assert rendered.count("together/_plan_row.html") == 1
        rendered.clear()
        meetup_propose(user=UserFactory(), starts_at=in_days(0, hours=5), place="Steiger")
        html = member_client.get("/samen").content.decode()
        assert "Steiger" in html
        assert rendered.count("together/_plan_row.html") == 1
    finally:
        template_rendered.disconnect(seen)


def _club(size: int):
    member = UserFactory()
    for number in range(size):
        event = EventFactory(
            title=f"Duik {number}",
            event_date=in_days(1 + number),
            max_participants=3,
            series=EventSeriesFactory() if number % 4 == 0 else None,
        )
        for _ in range(2):
            EventParticipant.objects.create(event=event, user=UserFactory())
        meetup = MeetupFactory(starts_at=in_days(1 + number, hours=3))
        MeetupParticipant.objects.create(meetup=meetup, user=UserFactory())
    return member


# The plan list renders from: session, user, the list's events, their names, their series' dates (the three kept by
# the events' versions: not read after a new afspraak), the afspraken with who goes along (one query), the member's
# history (its section's key); the form's spots (one query) when its section is rendered (after a new afspraak), the
# calendar link (two) and the header's role check when theirs are (the header is kept through the club's writes):
# the same for a member and an admin, and the same with 2 and with 40 events and afspraken.
@pytest.mark.parametrize("who", ["member", "admin"])
@pytest.mark.parametrize("size", [2, 40])
def test_the_list_costs_a_fixed_number_of_queries(who, size):
    viewer = _club(size)
    if who == "admin":
        viewer = AdminFactory()
    caches["pages"].clear()
    client = logged_in(viewer)
    with CaptureQueriesContext(connection) as cold:
        assert client.get("/samen").status_code == 200
    assert len(cold) == 11, [query["sql"] for query in cold]
    # After a sign-up and after a new afspraak: only the rows they changed are rendered, same queries.
    first_event = next(row.event for row in plan_list(viewer).rows if row.event is not None)
    event_sign_up(user=UserFactory(), event_id=first_event.event.pk)
    with CaptureQueriesContext(connection) as after_sign_up:
        assert client.get("/samen").status_code == 200
    assert len(after_sign_up) == 7, [query["sql"] for query in after_sign_up]
    meetup_propose(user=UserFactory(), starts_at=in_days(0, hours=5), place="Steiger")
    with CaptureQueriesContext(connection) as after_afspraak:
        assert client.get("/samen").status_code == 200
    assert len(after_afspraak) == 5, [query["sql"] for query in after_afspraak]
