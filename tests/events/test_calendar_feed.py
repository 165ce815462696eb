"""The private calendar subscription: /agenda/<token>.ics, read back with icalendar; renewing the link."""

import datetime
import zoneinfo

import icalendar
import pytest
from django.urls import reverse

from apps.events.models import CalendarFeed
from apps.events.services import calendar_feed_renew, event_cancel
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db
AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")


def feed_url(token: str) -> str:
    return reverse("calendar_feed", args=[token])


def test_the_feed_holds_the_events_i_joined_without_a_session(client, member):
    joined = EventFactory(
        title="Sinterklaasduik, met muts",
        event_date=datetime.datetime(2099, 12, 5, 10, 30, tzinfo=AMSTERDAM),
        location="Strand Scheveningen",
        description="Verzamelen bij de pier.\nNeem een muts mee.",
    )
    EventParticipantFactory(event=joined, user=member)
    EventParticipantFactory(event=EventFactory(title="Niet de mijne"))  # someone else's
    EventFactory(title="Niet aangemeld")
    EventParticipantFactory(event=EventFactory(title="Afgelast", is_active=False), user=member)
    token = calendar_feed_renew(user=member).token

    response = client.get(feed_url(token))  # no login: a calendar app has no session

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Cache-Control"] == "private, no-store"
    calendar = icalendar.Calendar.from_ical(response.content)
    assert str(calendar["X-WR-CALNAME"]) == "Koud water challenge"
    assert calendar["REFRESH-INTERVAL"].dt == datetime.timedelta(hours=1)
    events = calendar.walk("VEVENT")
    assert [str(e["SUMMARY"]) for e in events] == ["Sinterklaasduik, met muts"]
    event = events[0]
    assert event["DTSTART"].dt == datetime.datetime(2099, 12, 5, 10, 30, tzinfo=AMSTERDAM)
    assert event["DTSTART"].dt.tzinfo.key == "Europe/Amsterdam"
    assert event["DTEND"].dt - event["DTSTART"].dt == datetime.timedelta(hours=1)
    assert str(event["LOCATION"]) == "Strand Scheveningen"
    assert str(event["DESCRIPTION"]) == "Verzamelen bij de pier.\nNeem een muts mee."
    assert str(event["UID"]) == f"event-{joined.pk}@127.0.0.1"
    assert [tz["TZID"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Amsterdam"]


def test_an_afgelast_event_stays_in_the_feed_as_cancelled_with_the_reason(client, member):
    going = EventFactory(title="Zondagduik", event_date=datetime.datetime(2099, 1, 4, 11, tzinfo=AMSTERDAM))
    off = EventFactory(
        title="Nieuwjaarsduik", description="", event_date=datetime.datetime(2099, 1, 1, 12, tzinfo=AMSTERDAM)
    )
    for event in (going, off):
        EventParticipantFactory(event=event, user=member)
    token = calendar_feed_renew(user=member).token
    before = icalendar.Calendar.from_ical(client.get(feed_url(token)).content).walk("VEVENT")
    assert [e.get("STATUS") for e in before] == [None, None]

    event_cancel(event_id=off.pk, reason="Storm op zee")

    calendar = icalendar.Calendar.from_ical(client.get(feed_url(token)).content)
    first, second = calendar.walk("VEVENT")
    assert str(first["UID"]) == f"event-{off.pk}@127.0.0.1"  # still there, with the same UID
    assert first["STATUS"] == "CANCELLED" and str(first["SUMMARY"]) == "Afgelast: Nieuwjaarsduik"
    assert str(first["DESCRIPTION"]) == "Afgelast. Reden: Storm op zee"
    assert str(second["SUMMARY"]) == "Zondagduik" and "STATUS" not in second


def test_the_same_uid_as_the_single_download(member_client, member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=member)
    token = calendar_feed_renew(user=member).token
    single = icalendar.Calendar.from_ical(member_client.get(reverse("event_ics", args=[event.pk])).content)
    feed = icalendar.Calendar.from_ical(member_client.get(feed_url(token)).content)
    assert feed.walk("VEVENT")[0]["UID"] == single.walk("VEVENT")[0]["UID"]


def test_renewing_the_link_stops_the_old_one(client, member):
    old = calendar_feed_renew(user=member).token
    new = calendar_feed_renew(user=member).token
    assert old != new and CalendarFeed.objects.filter(user=member).count() == 1
    assert client.get(feed_url(old)).status_code == 404
    assert client.get(feed_url(new)).status_code == 200


@pytest.mark.parametrize("token", ["a" * 43, "kort", "x" * 65])
def test_an_unknown_or_malformed_token_is_404(client, token):
    assert client.get(f"/agenda/{token}.ics").status_code == 404


def test_a_deactivated_member_has_no_feed(client, member):
    token = calendar_feed_renew(user=member).token
    member.is_active = False
    member.save()
    assert client.get(feed_url(token)).status_code == 404


def test_the_renew_button_makes_a_link_and_returns_to_the_page(member_client, member):
    response = member_client.post(reverse("calendar_renew"), {"back": "account"})
    assert response.status_code == 302 and response["Location"] == "/account#agenda"
    token = CalendarFeed.objects.get(user=member).token

    page = member_client.get("/account").content.decode()
    assert f"webcal://testserver/agenda/{token}.ics" in page
    assert f'value="http://testserver/agenda/{token}.ics"' in page
    assert "Vernieuw link" in page


def test_only_a_renewed_link_says_the_old_one_stopped(member_client):
    """Issue 28 §6: the first link had no old link to stop."""
    first = member_client.post(reverse("calendar_renew"), {"back": "account"}, follow=True).content.decode()
    assert "Je agenda-link staat klaar." in first and "De oude link werkt niet meer" not in first
    again = member_client.post(reverse("calendar_renew"), {"back": "account"}, follow=True).content.decode()
    assert "Je nieuwe agenda-link staat klaar. De oude link werkt niet meer." in again


def test_the_renew_button_refuses_an_outside_return_address(member_client):
    response = member_client.post(reverse("calendar_renew"), {"back": "https://elders.example/"})
    assert response["Location"] == "/dashboard#samen"


@pytest.mark.parametrize("events", [1, 40])
def test_the_feed_costs_a_fixed_number_of_queries(client, member, django_assert_max_num_queries, events):
    for event in EventFactory.create_batch(events):
        EventParticipantFactory(event=event, user=member)
        EventParticipantFactory(event=event, user=UserFactory())
    token = calendar_feed_renew(user=member).token
    with django_assert_max_num_queries(2):
        response = client.get(feed_url(token))
    assert len(icalendar.Calendar.from_ical(response.content).walk("VEVENT")) == events
