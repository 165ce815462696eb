"""Values kept by scope (`kept_value`, apps/core/page_sections.py): what a page reads to order or key its sections is
read again when a write moved one of the scopes it declares, or when the clock ends it; never otherwise, and never
another page's or another version's. The plan list keeps its events part this way (apps/together/plans.py)."""

import datetime

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.core.page_cache import EVENTS, MEMBER, PAGE_TIMEOUT, PageSections, _store, serving_page
from apps.core.page_sections import SectionScopeUndeclared, kept_value
from apps.events.models import EventWaitlistEntry
from apps.events.selectors import PAST_EVENT_LIMIT
from apps.events.services import event_sign_up
from apps.together.plans import ListedEvents, SeriesDate, _listed_events, plan_list
from apps.together.services import meetup_propose
from tests.factories import EventFactory, EventSeriesFactory, UserFactory

pytestmark = pytest.mark.django_db


class Page:
    """A page being served with these versions, as `cached_page` sets it up; `store()` does what its end does."""

    def __init__(self, **versions):
        self.sections = PageSections(base=("section", "release", "a view", MEMBER, 7), versions=versions, earlier=())

    def __enter__(self):
        self.token = serving_page.set(self.sections)
        return self

    def __exit__(self, *exc):
        serving_page.reset(self.token)
        if self.sections.new:
            _store(self.sections.new)

    def lifetimes(self) -> list[int]:
        return list(self.sections.new)


def _keep(made: list, *, until=None, scopes=(MEMBER, EVENTS)):
    def make():
        made.append(1)
        return f"value {len(made)}"

    return kept_value("test-value", scopes, make, until=lambda _value: until)


@pytest.fixture(autouse=True)
def _empty_cache():
    caches["pages"].clear()


def test_a_kept_value_is_made_again_only_when_a_version_of_its_scopes_moved():
    made: list = []
    with Page(member=1, events="e1", together="t1"):
        assert _keep(made) == "value 1"
    with Page(member=1, events="e1", together="t2"):  # a new afspraak: not one of its scopes
        assert _keep(made) == "value 1"
    with Page(member=1, events="e2", together="t2"):  # a sign-up somewhere
        assert _keep(made) == "value 2"
    with Page(member=2, events="e2", together="t2"):  # a write of her own
        assert _keep(made) == "value 3"
    assert len(made) == 3


def test_a_kept_value_lives_until_the_clock_ends_it():
    made: list = []
    soon = timezone.now() + datetime.timedelta(minutes=10)
    with Page(member=1, events="e1") as page:
        _keep(made, until=soon)
    assert page.lifetimes() and 598 <= page.lifetimes()[0] <= 600  # stored until `until`, in whole seconds
    with Page(member=1, events="e2") as page:
        _keep(made, until=None)
    assert page.lifetimes() == [PAGE_TIMEOUT]
    with Page(member=1, events="e3") as page:  # ends within the second: not kept at all
        _keep(made, until=timezone.now() + datetime.timedelta(milliseconds=500))
    assert page.lifetimes() == []
    with Page(member=1, events="e3"):
        _keep(made)
    assert len(made) == 4


def test_outside_a_page_that_may_be_stored_a_value_is_made_every_time():
    made: list = []
    _keep(made)
    _keep(made)
    with Page(member=1, events=None):  # the cache is down: no version
        _keep(made)
        _keep(made)
    assert len(made) == 4


def test_a_value_may_only_keep_scopes_its_page_declares():
    with Page(member=1, together="t1"), pytest.raises(SectionScopeUndeclared):
        _keep([], scopes=(MEMBER, EVENTS))
    with Page(member=1, together="t1"), pytest.raises(ValueError, match="unknown page scopes"):
        _keep([], scopes=(MEMBER, "weather"))


def test_the_plan_lists_events_end_when_one_starts_an_offer_runs_out_or_a_date_of_a_series_comes():
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(days=3))
    later = EventFactory(event_date=timezone.now() + datetime.timedelta(days=5))
    member = UserFactory()
    assert [row.event.event.pk for row in plan_list(member).rows] == [event.pk, later.pk]
    assert ListedEvents(rows=_event_rows(member), series={}, names={}).ends() == event.event_date
    offer_end = timezone.now() + datetime.timedelta(hours=2)
    EventWaitlistEntry.objects.create(
        event=later, user=UserFactory(), offered_at=timezone.now(), offer_expires_at=offer_end
    )
    assert ListedEvents(rows=_event_rows(member), series={}, names={}).ends() == offer_end
    sooner = timezone.now() + datetime.timedelta(hours=1)
    series = {EventSeriesFactory().pk: [SeriesDate(0, sooner, False, "")]}
    assert ListedEvents(rows=_event_rows(member), series=series, names={}).ends() == sooner
    assert ListedEvents(rows=[], series={}, names={}).ends() is None


def _event_rows(member) -> list[tuple]:
    return _listed_events(member, limit=21)


def test_samen_after_an_afspraak_reads_no_events_and_after_a_sign_up_shows_the_new_count(client):
    member = UserFactory()
    event = EventFactory(title="Nieuwjaarsduik", max_participants=10)
    client.force_login(member)
    assert "0 / 10 deelnemers" in client.get("/samen").content.decode()
    meetup_propose(user=UserFactory(), starts_at=timezone.now() + datetime.timedelta(days=1), place="Steiger")
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/samen").content.decode()
    assert "Steiger" in page and "Nieuwjaarsduik" in page
    events_read = [query["sql"] for query in queries if '"events_event"' in query["sql"]]
    # Only her history is read (its section's key), not the list's events.
    assert len(events_read) == 1 and f"LIMIT {PAST_EVENT_LIMIT}" in events_read[0], events_read
    event_sign_up(user=UserFactory(), event_id=event.pk)
    assert "1 / 10 deelnemers" in client.get("/samen").content.decode()
