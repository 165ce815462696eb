"""Issue 34 §3: the club feed shows a weekly series once ("Elke zondag tot …: Zondagduik"), not one "Nieuw event"
per date, and one item per cancellation that matters (dates called off together are one item)."""

import datetime

import pytest
from django.utils import timezone

from apps.club.feed import feed_item, feed_items
from apps.club.services import item_hide
from apps.events.models import Event
from apps.events.services import EventDetails, event_cancel, event_series_create
from tests.factories import EventFactory

pytestmark = pytest.mark.django_db


def series_of(weeks: int, *, title: str = "Zondagduik", location: str = "Scheveningen") -> list[Event]:
    start = timezone.now() + datetime.timedelta(days=2)
    until = timezone.localdate(start) + datetime.timedelta(weeks=weeks - 1)
    details = EventDetails(title=title, starts_at=start, location=location)
    return event_series_create(details=details, repeat_until=until)


def kinds() -> list[str]:
    return [item.kind for item in feed_items()[0]]


def test_a_thirteen_date_series_is_one_feed_item():
    dates = series_of(13)
    items, _ = feed_items()
    assert [item.kind for item in items] == ["series"]
    text = items[0].text
    weekday = ("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag")[
        timezone.localtime(dates[0].event_date).weekday()
    ]
    assert text.startswith(f"Elke {weekday} tot ") and text.endswith(": Zondagduik in Scheveningen")
    assert "Nieuw event" not in text
    assert items[0].link == f"/events/{dates[0].pk}"


def test_an_event_on_its_own_still_says_nieuw_event():
    EventFactory(title="Nieuwjaarsduik")
    series_of(3)
    texts = [item.text for item in feed_items()[0]]
    assert sum(text.startswith("Nieuw event: Nieuwjaarsduik") for text in texts) == 1
    assert len(texts) == 2


def test_a_cancelled_date_is_one_item_with_its_reason():
    dates = series_of(5)
    event_cancel(event_id=dates[2].pk, reason="Storm op zee")
    items, _ = feed_items()
    assert sorted(item.kind for item in items) == ["cancelled", "series"]
    cancelled = next(item for item in items if item.kind == "cancelled")
    assert cancelled.text.startswith("Afgelast: Zondagduik op ") and cancelled.body == "Storm op zee"
    assert cancelled.link == f"/events/{dates[2].pk}"


def test_dates_called_off_together_are_one_item():
    dates = series_of(6)
    event_cancel(event_id=dates[3].pk, reason="Blauwalg", following=True)
    cancelled = [item for item in feed_items()[0] if item.kind == "cancelled"]
    assert len(cancelled) == 1 and cancelled[0].object_id == dates[3].pk
    assert "3 data vanaf" in cancelled[0].text


def test_a_series_called_off_entirely_leaves_only_the_cancellation():
    dates = series_of(3)
    event_cancel(event_id=dates[0].pk, reason="Ijs", following=True)
    assert kinds() == ["cancelled"]


def test_a_series_item_can_be_hidden(admin_user):
    dates = series_of(2)
    item_hide(actor=admin_user, kind="series", object_id=dates[0].series_id)
    assert kinds() == []
    assert feed_item(kind="series", object_id=dates[0].series_id) is None


def test_the_club_page_shows_one_series_item(member_client):
    series_of(13, title="Zondagduik")
    html = member_client.get("/club").content.decode()
    assert html.count("Zondagduik") == 1
    assert "Nieuw event" not in html


def test_a_moved_event_is_one_item_saying_where_and_when_now():
    from apps.events.services import event_update

    event = EventFactory(title="Nieuwjaarsduik", location="Zandvoort")
    later = event.event_date + datetime.timedelta(hours=2)
    event_update(
        event_id=event.pk,
        details=EventDetails(title="Nieuwjaarsduik", starts_at=later, location="Scheveningen"),
    )
    moved = [item for item in feed_items()[0] if item.kind == "moved"]
    assert len(moved) == 1 and moved[0].link == f"/events/{event.pk}"
    assert moved[0].text.startswith("Verplaatst: Nieuwjaarsduik, nu op ") and moved[0].text.endswith(
        f"om {timezone.localtime(later):%H:%M} in Scheveningen"
    )
    # A change of the text alone is no news for the feed.
    event_update(
        event_id=event.pk,
        details=EventDetails(title="Nieuwjaarsduik!", starts_at=later, location="Scheveningen"),
    )
    assert [item.kind for item in feed_items()[0]].count("moved") == 1


def test_series_dates_moved_together_are_one_item_and_an_afgelast_one_none():
    from apps.events.services import event_update

    dates = series_of(5)
    event_update(
        event_id=dates[1].pk,
        details=EventDetails(
            title="Zondagduik", starts_at=dates[1].event_date + datetime.timedelta(hours=1), location="Scheveningen"
        ),
        following=True,
    )
    moved = [item for item in feed_items()[0] if item.kind == "moved"]
    assert len(moved) == 1 and moved[0].text.startswith("Verplaatst: Zondagduik, 4 data vanaf ")
    event_cancel(event_id=dates[1].pk, reason="Storm op zee", following=True)
    assert "moved" not in kinds()
