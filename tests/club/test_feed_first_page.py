"""The feed's first page, the one every visit of /club shows, is one query over all its sources (apps/club/feed.py,
apps/core/prepared.py `PreparedUnion`). It must be the page the sources give one by one, as every later page is
read: the same items in the same order (moments shared across kinds included), the same values (a temperature,
a shared photo, a series' first date), the same cursor."""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.challenges.models import ClubChallengeEntry, Dip, UserBadge
from apps.club.feed import _FIRST_PAGE, PAGE_SIZE, SOURCES, feed_items
from apps.events.models import Event, EventSeries
from apps.notifications.models import ClubMessage
from apps.together.models import Meetup
from tests.events.test_series_feed import series_of
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubMessageFactory,
    ClubSharingFactory,
    DipFactory,
    EventFactory,
    MeetupFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _source_by_source(limit: int = PAGE_SIZE):
    """The first page read as every later page is: each source on its own, merged in Python."""
    found = [row for source in SOURCES.values() for row in source._sorted_rows(None, limit + 1)]  # noqa: SLF001
    found.sort(key=lambda row: row[0], reverse=True)
    return [source._items([row])[0] for _key, source, row in found[:limit]], len(found) > limit  # noqa: SLF001


@pytest.fixture
def every_kind():
    """Older dips than a page holds, then one item of every kind at one and the same moment."""
    now = timezone.now().replace(microsecond=0)
    same_moment = now - datetime.timedelta(hours=1)
    sharer = UserFactory(full_name="Kees Koud")
    ClubSharingFactory(user=sharer)
    card = UserChallengeFactory(user=sharer)
    for number in range(PAGE_SIZE + 5):
        dip = DipFactory(user_challenge=card, spot=f"Sloterplas {number}")
        Dip.objects.filter(pk=dip.pk).update(created_at=now - datetime.timedelta(days=3, minutes=number))
    dip = DipFactory(user_challenge=card, spot="Het IJ", water_temperature=Decimal("4.5"), share_photo=True)
    Dip.objects.filter(pk=dip.pk).update(created_at=same_moment, photo="dips/ijs.jpg")
    badge = UserBadgeFactory(user_challenge=card)
    UserBadge.objects.filter(pk=badge.pk).update(earned_at=same_moment)
    event = EventFactory(title="Nieuwjaarsduik")
    cancelled = EventFactory(title="Maanduik", cancel_reason="Storm")
    moved = EventFactory(title="Ochtendduik", location="Zandvoort")
    Event.objects.filter(pk=event.pk).update(created_at=same_moment)
    Event.objects.filter(pk=cancelled.pk).update(cancelled_at=same_moment, is_active=False)
    Event.objects.filter(pk=moved.pk).update(moved_at=same_moment)
    dates = series_of(4)
    EventSeries.objects.filter(pk=dates[0].series_id).update(created_at=same_moment)
    meetup = MeetupFactory(proposer=sharer, place="Sloterplas")
    Meetup.objects.filter(pk=meetup.pk).update(created_at=same_moment)
    message = ClubMessageFactory()
    ClubMessage.objects.filter(pk=message.pk).update(created_at=same_moment)
    entry = ClubChallengeEntryFactory(user=sharer)
    ClubChallengeEntry.objects.filter(pk=entry.pk).update(completed_at=same_moment)


def test_the_first_page_is_the_page_the_sources_give_one_by_one(every_kind):
    items, cursor = feed_items()
    expected, more = _source_by_source()
    assert items == expected
    assert {item.kind for item in items} == set(SOURCES)  # every kind, all at one moment: ordered by kind and id
    assert more and cursor is not None and (cursor.at, cursor.kind, cursor.object_id) == expected[-1].sort_key
    photo_dip = next(item for item in items if item.kind == "dip" and "Het IJ" in item.text)
    assert "4,5 °C" in photo_dip.text and photo_dip.photo_url


def test_the_first_page_is_one_query_and_each_source_reads_only_its_newest_rows(every_kind):
    with CaptureQueriesContext(connection) as queries:
        feed_items()
    assert len(queries) == 1
    sql = _FIRST_PAGE.sql()
    assert sql.count(f"LIMIT {PAGE_SIZE + 1}") == len(SOURCES) + 1, "each source limited on its own, and the page"
    clock = "statement_timestamp" if connection.vendor == "postgresql" else "now"
    assert clock in sql.lower(), "a plonsafspraak's week is the database's clock: the query stays the same"


def test_an_empty_club_and_a_short_feed_have_no_next_page():
    assert feed_items() == ([], None)
    ClubMessageFactory(title="Welkom")
    items, cursor = feed_items()
    assert [item.text for item in items] == ["Clubbericht: Welkom"] and cursor is None
