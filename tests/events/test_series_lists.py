"""Issue 34 §3: the lists fold a weekly series into one row with its next date and a way to open its dates
(/admin/events: a <details> with each date linking to its admin page), at a fixed number of queries whatever the
number of dates; an afgelast date stays in the lists struck through with its reason, and its own page says so and
offers no sign-up."""

import datetime
import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.events.models import Event
from apps.events.services import EventDetails, event_cancel, event_series_create
from tests.factories import EventFactory, EventParticipantFactory

pytestmark = pytest.mark.django_db


def series_of(weeks: int, *, title: str = "Zondagduik", maximum: int | None = None) -> list[Event]:
    start = timezone.now() + datetime.timedelta(days=2)
    until = timezone.localdate(start) + datetime.timedelta(weeks=weeks - 1)
    details = EventDetails(title=title, starts_at=start, location="Scheveningen", max_participants=maximum)
    return event_series_create(details=details, repeat_until=until)


def queries(client, url: str) -> tuple[int, str]:
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured), response.content.decode()


# --- /admin/events ----------------------------------------------------------------------------------------------


def test_the_admin_list_folds_a_series_into_one_row_with_its_dates(admin_client):
    dates = series_of(5)
    EventFactory(title="Nieuwjaarsduik")
    event_cancel(event_id=dates[0].pk, reason="Storm op zee")
    html = admin_client.get("/admin/events/").content.decode()
    rows = re.findall(r'<li class="physical-item', html)
    assert len(rows) == 2
    # The row leads with the next date that goes ahead; the dates open below it, each to its own admin page.
    assert "Volgende datum" in html and "<details" in html and "Alle 5 komende data van de reeks" in html
    for event in dates:
        assert f'href="/admin/events/{event.pk}"' in html
    assert re.search(r"<del><time[^>]*>[^<]*</time></del></a>\s*· Afgelast: Storm op zee", html)
    assert "Elke " in html


@pytest.mark.parametrize("url", ["/admin/events/", "/admin/events/?periode=voorbij"])
def test_the_admin_list_costs_the_same_at_2_and_13_dates(admin_client, url):
    def past(events):
        Event.objects.filter(pk__in=[event.pk for event in events]).update(
            event_date=timezone.now() - datetime.timedelta(days=1)
        )

    small = series_of(2)
    past(small[:1])
    EventFactory()
    few, _ = queries(admin_client, url)
    big = series_of(13, title="Woensdagduik")
    past(big[:6])
    for event in big:
        EventParticipantFactory(event=event)
    many, html = queries(admin_client, url)
    assert many == few, (few, many)
    assert html.count("<details") == 2


# --- the member's list --------------------------------------------------------------------------------------------


def test_a_cancelled_date_stays_in_the_plan_list_struck_through_with_its_reason(member_client):
    dates = series_of(2)
    event_cancel(event_id=dates[0].pk, reason="Onweer verwacht")
    html = member_client.get("/samen").content.decode()
    # The series' row is led by the date that goes ahead; the afgelast one stays among its dates, struck through.
    assert "Afgelast: Onweer verwacht" in html
    dates_list = html[html.index('class="plan-dates"') :].split("</details>")[0]
    assert "<del><time" in dates_list  # struck through, and no link to sign up for it
    assert f'href="/events/{dates[0].pk}"' not in dates_list and f'href="/events/{dates[1].pk}"' in dates_list


# --- a date's own page ----------------------------------------------------------------------------------------------


def test_a_cancelled_dates_page_says_so_and_offers_no_sign_up(member_client):
    dates = series_of(2)
    event_cancel(event_id=dates[0].pk, reason="Onweer verwacht")
    html = member_client.get(f"/events/{dates[0].pk}").content.decode()
    assert "Afgelast." in html and "Onweer verwacht" in html
    assert "Nog niemand aangemeld" not in html and "Jij als eerste" not in html
    assert "/aanmelden" not in html and "Ik kom elke week" not in html
    assert "Zet me op de wachtlijst" not in html


def test_ik_kom_elke_week_from_a_dates_page_and_back(member_client, member):
    dates = series_of(3)
    html = member_client.get(f"/events/{dates[1].pk}").content.decode()
    assert "Ik kom elke week" in html and f"/events/reeks/{dates[0].series_id}/elke-week" in html
    response = member_client.post(
        f"/events/reeks/{dates[0].series_id}/elke-week", {"back": "event", "event": dates[1].pk}
    )
    assert response.status_code == 302 and response["Location"] == f"/events/{dates[1].pk}#series"
    page = member_client.get(response["Location"]).content.decode()
    assert "Top, je komt elke week! Je bent aangemeld voor 3 data." in page
    assert "Ik stop met deze reeks" in page and "Je komt elke week" in page
    assert member.event_participations.count() == 3
    response = member_client.post(
        f"/events/reeks/{dates[0].series_id}/stoppen", {"back": "event", "event": dates[1].pk}
    )
    page = member_client.get(response["Location"]).content.decode()
    assert "Je bent gestopt met deze reeks" in page and "Ik kom elke week" in page
    assert member.event_participations.count() == 0


def test_a_series_form_for_an_unknown_series_says_so_in_dutch(member_client):
    response = member_client.post("/events/reeks/999999/elke-week", {"back": "events"}, follow=True)
    assert response.status_code == 200
    assert "Deze reeks bestaat niet (meer)." in response.content.decode()
    response = member_client.post("/events/reeks/1/elke-week", {"back": "event", "event": "x" * 40})
    assert response.status_code == 302


def test_an_event_on_its_own_has_no_series_section(member_client):
    event = EventFactory()
    html = member_client.get(f"/events/{event.pk}").content.decode()
    assert "Ik kom elke week" not in html and "Nog niemand aangemeld. Jij als eerste?" in html
