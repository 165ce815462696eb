import datetime
import re
import zoneinfo

import pytest
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.events.models import EventParticipant
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
DASHBOARD_EVENTS = "/dashboard#samen"  # the plans block: events and afspraken (apps.together)


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def events_section(html: str) -> str:
    start = html.index('id="samen"')
    return html[start : html.index("</section>", start)]


def join_url(event_id) -> str:
    return reverse("event_join", args=[event_id])


def leave_url(event_id) -> str:
    return reverse("event_leave", args=[event_id])


# Dashboard section ----------------------------------------------------------------------------------------


def test_the_card_shows_everything_in_dutch(member_client):
    EventFactory(
        title="Sinterklaasduik",
        event_date=datetime.datetime(2099, 12, 5, 10, 30, tzinfo=AMSTERDAM),
        location="Strand Scheveningen",
        description="Verzamelen bij de pier.\nNeem een muts mee.",
        max_participants=10,
    ).participants.create(user=UserFactory())

    html = events_section(member_client.get("/dashboard").content.decode())

    assert "Wie gaat er plonsen?" in html
    assert "Sinterklaasduik" in html
    assert "zaterdag 5 december 2099, 10:30" in html
    assert "Strand Scheveningen" in html
    assert "Verzamelen bij de pier.<br>Neem een muts mee." in html
    assert "1 / 10 deelnemers" in html
    assert re.search(r'<button type="submit" class="btn btn-primary">Aanmelden</button>', html)
    assert "Je bent aangemeld<" not in html
    assert 'href="/events/' in html  # the event's own page (with its calendar file)


def test_a_summer_event_is_shown_in_summer_time(member_client):
    EventFactory(event_date=datetime.datetime(2099, 7, 1, 6, 0, tzinfo=datetime.UTC))
    html = events_section(member_client.get("/dashboard").content.decode())
    assert "woensdag 1 juli 2099, 08:00" in html


def test_count_without_a_maximum(member_client):
    event = EventFactory()
    EventParticipantFactory.create_batch(3, event=event)
    html = events_section(member_client.get("/dashboard").content.decode())
    assert "3 deelnemers" in html and " / " not in html


def test_a_joined_event_has_the_badge_and_afmelden(member_client, member):
    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event, user=member)

    html = events_section(member_client.get("/dashboard").content.decode())

    assert re.search(r'<span class="badge-pill success">Je bent aangemeld</span>', html)
    assert f'action="{leave_url(event.pk)}"' in html
    assert ">Afmelden</button>" in html
    assert ">Vol</button>" not in html and ">Aanmelden</button>" not in html


def test_a_full_event_offers_the_waitlist(member_client):
    event = EventFactory(max_participants=2)
    EventParticipantFactory.create_batch(2, event=event)

    html = events_section(member_client.get("/dashboard").content.decode())

    assert re.search(r'<button type="submit" class="btn btn-secondary">Zet me op de wachtlijst</button>', html)
    assert f'action="{join_url(event.pk)}"' in html
    assert "2 / 2 deelnemers" in html and "· vol" in html


def test_no_events_gives_the_empty_state(member_client):
    EventFactory(is_active=False)
    EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1))
    html = events_section(member_client.get("/dashboard").content.decode())
    assert "Er staat nog niets gepland." in html
    assert "<article" not in html


def test_the_section_has_no_inline_script_or_style(member_client, member):
    EventParticipantFactory(user=member)
    EventFactory(max_participants=1).participants.create(user=UserFactory())
    EventFactory()
    html = events_section(member_client.get("/dashboard").content.decode())
    assert "<script" not in html and "<style" not in html and "style=" not in html


@pytest.mark.parametrize("events", [0, 3, 50])
def test_dashboard_query_budget_whatever_the_events(member_client, django_assert_max_num_queries, events):
    people = UserFactory.create_batch(10)
    EventParticipant.objects.bulk_create(
        [EventParticipant(event=event, user=person) for event in EventFactory.create_batch(events) for person in people]
    )
    member_client.get("/dashboard")  # the first request also fills caches (content types, session)
    cache.clear()  # the rendering is what this counts, not the cached page (tests/test_page_cache.py)

    # Measured: 19 with events, 18 without (session, user, admin role, four for the challenges part and one for
    # the badges section's summary, two for the club challenges, the club messages, and the plans block's five:
    # events, their series' dates, who goes to them, afspraken, who goes along; and for this new member's first
    # dashboard (issue 34 §6) whether she ever dipped, whether the club asked her to share, her open offers).
    with django_assert_max_num_queries(19) as captured:
        response = member_client.get("/dashboard")

    assert response.status_code == 200
    assert response.content.decode().count('<article class="event-card') == min(events, 3)
    event_queries = [q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "events_event"')]
    assert len(event_queries) == 1, event_queries  # the offers' query (joining the event) is one more, at any size


def test_dashboard_costs_the_same_with_0_3_and_50_events(member_client, member):
    def dashboard_queries() -> int:
        member_client.get("/dashboard")
        cache.clear()  # count the rendering, not the cached page
        with CaptureQueriesContext(connection) as captured:
            assert member_client.get("/dashboard").status_code == 200
        return len(captured)

    people = UserFactory.create_batch(20)
    counts = [dashboard_queries()]
    for _ in range(2):
        batch = EventFactory.create_batch(3 if len(counts) == 1 else 47)
        EventParticipant.objects.bulk_create([EventParticipant(event=e, user=p) for e in batch for p in people])
        EventParticipantFactory(event=batch[0], user=member)
        counts.append(dashboard_queries())

    # Without any event the plans block skips the names of who goes: one query less.
    assert counts[0] + 1 == counts[1] == counts[2], counts


# Sign up --------------------------------------------------------------------------------------------------


def test_member_signs_up(member_client, member):
    event = EventFactory()

    response = member_client.post(join_url(event.pk))

    assert response.status_code == 302 and response.url == DASHBOARD_EVENTS
    assert messages_of(response) == ["Je bent aangemeld voor dit event!"]
    assert event.participants.filter(user=member).exists()


def test_sign_up_then_the_dashboard_shows_the_message_and_badge(member_client):
    event = EventFactory()

    response = member_client.post(join_url(event.pk), follow=True)

    html = response.content.decode()
    assert "Je bent aangemeld voor dit event!" in html
    assert '<span class="badge-pill success">Je bent aangemeld</span>' in events_section(html)


def test_duplicate_sign_up(member_client, member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=member)

    response = member_client.post(join_url(event.pk))

    assert response.url == DASHBOARD_EVENTS
    assert messages_of(response) == ["Je bent al aangemeld voor dit event"]
    assert event.participants.count() == 1


@pytest.mark.parametrize(
    ("event_kwargs", "message"),
    [
        ({"event_date": timezone.now() - datetime.timedelta(days=1)}, "Dit event is al voorbij."),
        ({"is_active": False}, "Dit event gaat niet door of is niet meer beschikbaar."),
    ],
    ids=["past", "inactive"],
)
def test_refused_sign_ups_say_why(member_client, member, event_kwargs, message):
    event = EventFactory(**event_kwargs)
    if event.max_participants:
        EventParticipantFactory(event=event)

    response = member_client.post(join_url(event.pk))

    assert response.url == DASHBOARD_EVENTS
    assert messages_of(response) == [message]
    assert not event.participants.filter(user=member).exists()


@pytest.mark.parametrize("event_id", ["987654", "999999999999999999"])
def test_unknown_event_gives_the_generic_message(member_client, event_id):
    response = member_client.post(f"/events/{event_id}/aanmelden")
    assert response.url == DASHBOARD_EVENTS
    assert messages_of(response) == ["Er ging iets mis met de aanmelding"]


@pytest.mark.parametrize(
    "path", ["/events/99999999999999999999999/aanmelden", "/events/abc/aanmelden", "/events/-1/afmelden"]
)
def test_event_ids_that_cannot_exist_are_404(member_client, path):
    assert member_client.post(path).status_code == 404


def test_a_database_failure_gives_the_generic_message(member_client, monkeypatch, caplog):
    event = EventFactory()

    def broken(**kwargs):
        raise OperationalError("could not obtain lock")

    monkeypatch.setattr("apps.events.views.event_sign_up", broken)
    response = member_client.post(join_url(event.pk))

    assert response.status_code == 302
    assert messages_of(response) == ["Er ging iets mis met de aanmelding"]
    assert "event sign-up failed" in caplog.text


def test_sign_up_needs_the_csrf_token(client, member):
    client = type(client)(enforce_csrf_checks=True)
    client.force_login(member)
    event = EventFactory()

    assert client.post(join_url(event.pk)).status_code == 403
    assert not event.participants.exists()


# Cancel ---------------------------------------------------------------------------------------------------


def test_member_cancels(member_client, member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=member)

    response = member_client.post(leave_url(event.pk))

    assert response.url == DASHBOARD_EVENTS
    assert messages_of(response) == ["Je bent afgemeld voor dit event"]
    assert not event.participants.exists()


def test_cancel_leaves_other_members_alone(member_client, other_member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=other_member)

    member_client.post(leave_url(event.pk))

    assert event.participants.filter(user=other_member).exists()


def test_cancel_of_a_past_event_is_refused(member_client, member):
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(days=1))
    EventParticipantFactory(event=event, user=member)

    response = member_client.post(leave_url(event.pk))

    assert messages_of(response) == ["Dit event is al voorbij."]
    assert event.participants.exists()


def test_cancel_of_an_unknown_event(member_client):
    response = member_client.post(leave_url(987654))
    assert messages_of(response) == ["Er ging iets mis met de aanmelding"]


# Who may do what ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["event_join", "event_leave", "event_ics"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_goes_to_auth(client, name, method):
    event = EventFactory()
    response = getattr(client, method)(reverse(name, args=[event.pk]))
    assert response.status_code == 302
    assert response.url.startswith("/auth")
    assert not EventParticipant.objects.exists()


@pytest.mark.parametrize("name", ["event_join", "event_leave"])
def test_get_on_the_post_endpoints_is_405(member_client, name):
    event = EventFactory()
    assert member_client.get(reverse(name, args=[event.pk])).status_code == 405
    assert not event.participants.exists()


def test_ics_refuses_post(member_client):
    assert member_client.post(reverse("event_ics", args=[EventFactory().pk])).status_code == 405


def test_admin_signs_up_and_cancels_like_a_member(admin_client, admin_user):
    event = EventFactory()

    response = admin_client.post(join_url(event.pk), follow=True)
    assert "Je bent aangemeld voor dit event!" in response.content.decode()
    assert event.participants.filter(user=admin_user).exists()

    response = admin_client.post(leave_url(event.pk))
    assert messages_of(response) == ["Je bent afgemeld voor dit event"]
    assert not event.participants.exists()


def test_admin_cannot_overfill_an_event_either(admin_client, admin_user):
    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event)
    assert messages_of(admin_client.post(join_url(event.pk))) == [
        "Dit event is vol. Je staat op de wachtlijst (plek 1)."
    ]
    assert event.participants.count() == 1 and event.waitlist.filter(user=admin_user).exists()
