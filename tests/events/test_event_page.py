"""Who goes, by name: on the plan list /samen (the first names per row; /events leads there) and on the
event's own page /events/<id> (all of them), for signed-in members; a fixed number of queries with a series
of 52 weeks and 200 participants."""

import datetime

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User
from apps.events.models import Event, EventParticipant, EventSeries
from apps.events.selectors import NAMES_ON_CARD
from apps.events.services import event_cancel
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_events_shows_the_first_names_and_how_many_more(member_client):
    event = EventFactory(title="Zondagduik")
    for n in range(NAMES_ON_CARD + 2):
        EventParticipantFactory(
            event=event,
            user=UserFactory(full_name=f"Zwemmer {n:02}"),
            created_at=timezone.now() + datetime.timedelta(seconds=n),
        )
    html = member_client.get("/samen").content.decode()
    shown = ", ".join(f"Zwemmer {n:02}" for n in range(NAMES_ON_CARD))
    assert f"Wie gaan er: {shown} en 2 anderen" in html
    assert f'href="/events/{event.pk}"' in html


def test_the_event_page_lists_everyone_and_the_sign_up_button(member_client, member):
    event = EventFactory(title="Zondagduik", max_participants=300)
    EventParticipantFactory(event=event, user=UserFactory(full_name="Petra Plek"))
    EventParticipantFactory(event=event, user=UserFactory(full_name=""))  # no name: "Zwemmer"
    html = member_client.get(f"/events/{event.pk}").content.decode()
    assert "Wie gaan er (2)" in html and "<li>Petra Plek</li>" in html and "<li>Zwemmer</li>" in html
    assert "Aanmelden</button>" in html


def test_an_afgelast_event_says_so_and_offers_no_sign_up(member_client):
    event = EventFactory(title="Zondagduik")
    event_cancel(event_id=event.pk, reason="Storm op zee")
    html = member_client.get(f"/events/{event.pk}").content.decode()
    assert "Afgelast." in html and "Storm op zee" in html and "Aanmelden</button>" not in html


def test_an_unknown_or_deactivated_event_is_a_404(member_client):
    assert member_client.get("/events/999999").status_code == 404
    assert member_client.get(f"/events/{EventFactory(is_active=False).pk}").status_code == 404


def test_visitors_sign_in_first(client):
    event = EventFactory()
    assert client.get(f"/events/{event.pk}")["Location"].startswith("/auth?next=")


def _queries(client, url: str) -> int:
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def _series_of_a_year() -> Event:
    series = EventSeries.objects.create(repeat_until=timezone.localdate() + datetime.timedelta(weeks=52))
    start = timezone.now() + datetime.timedelta(days=1)
    events = Event.objects.bulk_create(
        [
            Event(title=f"Zondagduik {week}", event_date=start + datetime.timedelta(weeks=week), series=series)
            for week in range(52)
        ]
    )
    members = User.objects.bulk_create([User(email=f"lid{n}@example.nl", full_name=f"Lid {n}") for n in range(200)])
    EventParticipant.objects.bulk_create(
        [EventParticipant(event=event, user=member) for event in events for member in members]
    )
    return events[0]


@pytest.mark.parametrize("page", ["/samen", "/events/{}"])
def test_names_cost_the_same_queries_for_one_event_and_a_year_of_full_ones(member_client, page):
    # A date of a small series: a series date's page reads its series (one query more than an event on its own).
    small = EventFactory(series=EventSeries.objects.create(repeat_until=timezone.localdate()))
    EventParticipantFactory(event=small)
    few = _queries(member_client, page.format(small.pk))
    big = _series_of_a_year()
    many = _queries(member_client, page.format(big.pk))
    # Both are dates of a series: the plan list reads the dates of the series it shows in one query, however many.
    assert many == few and many <= 12, (few, many)


def test_a_past_event_offers_no_sign_up_and_a_new_name_shows_at_once(member_client, member):
    from apps.accounts.services import account_profile_update

    past = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=3))
    EventParticipantFactory(event=past, user=member)
    html = member_client.get(f"/events/{past.pk}").content.decode()
    assert "Afmelden</button>" not in html and "<li>Marit Zwemmer</li>" in html
    account_profile_update(user=member, full_name="Marit Nieuw", email=member.email, newsletter_consent=False)
    assert "<li>Marit Nieuw</li>" in member_client.get(f"/events/{past.pk}").content.decode()
