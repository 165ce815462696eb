"""The events on the plan list (/samen, where /events leads: apps.together.plans): every upcoming event with
places left and my status, my past events, the waitlist buttons, pages of plans."""

import datetime
import re

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from apps.events.services import event_sign_up
from apps.together.plans import PLANS_PER_PAGE as EVENTS_PER_PAGE
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_all_upcoming_events_not_only_three(member_client):
    for n in range(5):
        EventFactory(title=f"Duik {n}", event_date=timezone.now() + datetime.timedelta(days=n + 1))
    html = member_client.get("/samen").content.decode()
    assert all(f"Duik {n}" in html for n in range(5))


def test_places_left_and_my_status(member_client, member):
    roomy = EventFactory(title="Ruim", max_participants=10)
    EventParticipantFactory.create_batch(3, event=roomy)
    mine = EventFactory(title="Mijn duik", max_participants=None)
    EventParticipantFactory(event=mine, user=member)
    full = EventFactory(title="Vol event", max_participants=1)
    EventParticipantFactory(event=full)
    waited = EventFactory(title="Wachten", max_participants=1)
    EventParticipantFactory(event=waited)
    event_sign_up(user=UserFactory(), event_id=waited.pk)
    event_sign_up(user=member, event_id=waited.pk)

    html = member_client.get("/samen").content.decode()

    assert "3 / 10 deelnemers" in html and "nog 7 plekken vrij" in html
    assert "Je bent aangemeld" in html
    assert "Je staat op de wachtlijst (plek 2)" in html
    assert re.search(r'<button type="submit" class="btn btn-secondary">Van de wachtlijst af</button>', html)
    assert re.search(r'<button type="submit" class="btn btn-secondary">Zet me op de wachtlijst</button>', html)
    assert 'name="back" value="events"' in html  # back to the list


def test_past_events_i_joined_are_listed_without_buttons(member_client, member):
    past = EventFactory(title="Oude duik", event_date=timezone.now() - datetime.timedelta(days=3))
    EventParticipantFactory(event=past, user=member)
    EventFactory(title="Oud zonder mij", event_date=timezone.now() - datetime.timedelta(days=3))

    html = member_client.get("/samen").content.decode()
    history = html[html.index("Events waar je aan meedeed") :]

    assert "Oude duik" in history and "Meegedaan" in history
    assert "Oud zonder mij" not in html
    assert f"/events/{past.pk}/afmelden" not in html


def test_the_dashboard_links_to_the_plan_list(member_client):
    assert 'href="/samen"' in member_client.get("/dashboard").content.decode()


def test_joining_a_full_event_from_events_puts_me_on_the_waitlist_and_back(member_client, member):
    full = EventFactory(max_participants=1)
    EventParticipantFactory(event=full)
    response = member_client.post(f"/events/{full.pk}/aanmelden", {"back": "events"})
    assert response["Location"] == "/samen"
    assert messages_of(response) == ["Dit event is vol. Je staat op de wachtlijst (plek 1)."]
    again = member_client.post(f"/events/{full.pk}/aanmelden", {"back": "events"})
    assert messages_of(again)[-1] == "Je staat op de wachtlijst (plek 1)"


def test_leaving_the_waitlist_says_so(member_client, member):
    full = EventFactory(max_participants=1)
    EventParticipantFactory(event=full)
    event_sign_up(user=member, event_id=full.pk)
    response = member_client.post(f"/events/{full.pk}/afmelden", {"back": "events"})
    assert messages_of(response) == ["Je staat niet meer op de wachtlijst"]
    assert not full.waitlist.exists()


def test_the_page_shows_the_calendar_subscription(member_client):
    html = member_client.get("/samen").content.decode()
    assert "Agenda-abonnement" in html and "Maak mijn agenda-link" in html


def test_no_inline_script_or_style(member_client, member):
    EventParticipantFactory(user=member)
    html = member_client.get("/samen").content.decode()
    assert "<script" not in html.split("</header>", 1)[1] and "style=" not in html


@pytest.mark.parametrize("size", [1, 30])
def test_the_page_costs_a_fixed_number_of_queries(member_client, member, django_assert_max_num_queries, size):
    people = UserFactory.create_batch(5)
    for n in range(size):
        event = EventFactory(max_participants=3)
        for person in people[:3]:
            EventParticipantFactory(event=event, user=person)
        for person in people[3:]:
            event_sign_up(user=person, event_id=event.pk)
        event_sign_up(user=member, event_id=event.pk)
        EventParticipantFactory(
            event=EventFactory(event_date=timezone.now() - datetime.timedelta(days=n + 1)), user=member
        )
    # Session, user, the list's events, their names, the afspraken and who goes along, the history, the calendar
    # link (two) and the form's spots (two): the names of who goes are one query for all the rows.
    with django_assert_max_num_queries(11):
        response = member_client.get("/samen")
    assert response.status_code == 200
    assert response.content.decode().count("Je staat op de wachtlijst (plek 3)") == min(size, EVENTS_PER_PAGE)


# --- paged: "Meer events" -----------------------------------------------------------------------------------


def upcoming_titles(html: str) -> list[str]:
    upcoming = html.split('id="plans-title"', 1)[1].split("Agenda-abonnement", 1)[0]
    return re.findall(r'class="event-title"><a class="tap-link" href="/events/\d+">([^<]+)<', upcoming)


@pytest.fixture
def many_events():
    count = 2 * EVENTS_PER_PAGE + 3
    return [
        EventFactory(title=f"Duik {n:02}", event_date=timezone.now() + datetime.timedelta(days=n + 1))
        for n in range(count)
    ]


def test_upcoming_events_come_in_pages_with_meer_events(member_client, member, many_events):
    EventParticipantFactory(event=EventFactory(event_date=timezone.now() - datetime.timedelta(days=3)), user=member)
    first = member_client.get("/samen").content.decode()
    assert upcoming_titles(first) == [event.title for event in many_events[:EVENTS_PER_PAGE]]
    assert 'href="?pagina=2" rel="next">Meer plannen' in first and 'rel="prev"' not in first
    assert "Events waar je aan meedeed" in first  # the history below the first page only

    second = member_client.get("/samen?pagina=2").content.decode()
    assert upcoming_titles(second) == [event.title for event in many_events[EVENTS_PER_PAGE : 2 * EVENTS_PER_PAGE]]
    assert 'href="?pagina=1" rel="prev"' in second and 'href="?pagina=3" rel="next"' in second
    assert "(pagina 2)" in second and "Events waar je aan meedeed" not in second

    last = member_client.get("/samen?pagina=3").content.decode()
    assert upcoming_titles(last) == [event.title for event in many_events[2 * EVENTS_PER_PAGE :]]
    assert "Meer plannen" not in last


def test_a_page_number_that_is_no_page_shows_the_nearest_one(member_client, many_events):
    assert upcoming_titles(member_client.get("/samen?pagina=abc").content.decode())[0] == many_events[0].title
    assert upcoming_titles(member_client.get("/samen?pagina=99").content.decode())[-1] == many_events[-1].title


def test_few_events_have_no_page_links(member_client):
    EventFactory()
    html = member_client.get("/samen").content.decode()
    assert "Meer plannen" not in html and "(pagina 1)" not in html


def test_signing_up_and_waiting_work_from_a_later_page(member_client, member, many_events):
    full = many_events[EVENTS_PER_PAGE + 1]
    full.max_participants = 1
    full.save()
    EventParticipantFactory(event=full, user=UserFactory())
    open_one = many_events[EVENTS_PER_PAGE + 2]
    html = member_client.get("/samen?pagina=2").content.decode()
    assert f'action="/events/{open_one.pk}/aanmelden"' in html and f'action="/events/{full.pk}/aanmelden"' in html
    assert member_client.post(f"/events/{open_one.pk}/aanmelden", {"back": "events"})["Location"] == "/samen"
    member_client.post(f"/events/{full.pk}/aanmelden", {"back": "events"})
    html = member_client.get("/samen?pagina=2").content.decode()
    assert open_one.participants.filter(user=member).exists() and full.waitlist.filter(user=member).exists()
    assert "Je staat op de wachtlijst (plek 1)" in html and "Je bent aangemeld" in html
