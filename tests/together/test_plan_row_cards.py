"""The plan list's rows are versioned from the queries' own rows and make their cards only when rendered
(apps/together/plans.py): a row from the cache costs its digest, never a model or a card; a row whose event or
afspraak changed in any column it shows gets a new version and is rendered with the change."""

import pytest
from django.core.cache import caches

from apps.accounts.services import account_profile_update
from apps.core.page_sections import _item_keys
from apps.core.page_versions import cache_key
from apps.events.services import EventDetails, event_update
from apps.together import plans
from apps.together.services import meetup_join, meetup_propose
from tests.factories import EventFactory, MeetupFactory
from tests.together.plans import in_days, logged_in, plan_row
from tests.together.test_plan_row_sections import Visits

pytestmark = pytest.mark.django_db


@pytest.fixture
def visits():
    caches["pages"].clear()
    return Visits()


@pytest.fixture
def made(monkeypatch):
    """The cards the plan list made, by kind."""
    cards: list[str] = []
    for name, kind in (("card_from_row", "event"), ("meetup_card_from_row", "meetup")):
        make = getattr(plans, name)
        monkeypatch.setattr(
            plans, name, lambda *args, _make=make, _kind=kind, **kw: cards.append(_kind) or _make(*args, **kw)
        )
    return cards


def test_rows_from_the_cache_make_no_card_and_a_new_afspraak_makes_one(member, other_member, visits, made):
    for number in range(3):
        EventFactory(title=f"Duik {number}", event_date=in_days(1 + number))
    MeetupFactory(starts_at=in_days(2), place="Sloterplas")
    client = logged_in(member)
    visits.get(client)
    assert sorted(made) == ["event"] * 3 + ["meetup"]  # the first visit renders every row
    made.clear()
    meetup = meetup_propose(user=other_member, starts_at=in_days(1.5), place="Bench-steiger", note="")
    html, rendered = visits.get(client)
    assert rendered == 1 and made == ["meetup"]
    row = plan_row(html, f"afspraak-{meetup.pk}")
    assert "Bench-steiger" in row and other_member.display_name in row and "Ik ga mee" in row
    assert f'href="/samen/{meetup.pk}"' in row


def test_an_edited_event_renders_its_row_with_what_changed(member, visits):
    events = [EventFactory(title=f"Duik {number}", event_date=in_days(1 + number)) for number in range(3)]
    client = logged_in(member)
    visits.get(client)
    edited = events[1]
    details = EventDetails(
        title="Duik bij maanlicht",
        starts_at=edited.event_date,
        location="Strand Zandvoort",
        description="Neem een lamp mee",
        max_participants=12,
    )
    event_update(event_id=edited.pk, details=details)
    html, rendered = visits.get(client)
    assert rendered == 1
    row = plan_row(html, f"event-{edited.pk}")
    assert "Duik bij maanlicht" in row and "Strand Zandvoort" in row and "Neem een lamp mee" in row
    assert "0 / 12 deelnemers" in row


def test_a_new_name_of_who_goes_along_renders_that_row(member, other_member, visits):
    meetup = MeetupFactory(starts_at=in_days(1), place="Sloterplas")
    meetup_join(user=other_member, meetup_id=meetup.pk)
    client = logged_in(member)
    html, _rendered = visits.get(client)
    assert other_member.display_name in plan_row(html, f"afspraak-{meetup.pk}")
    account_profile_update(
        user=other_member, full_name="Nieuwe Naam", email=other_member.email, newsletter_consent=False
    )
    html, _rendered = visits.get(client)
    assert "Nieuwe Naam" in plan_row(html, f"afspraak-{meetup.pk}")


def test_the_keys_of_a_lists_items_are_those_of_their_sections():
    key = ("section", "release", ("view", "member", 7, (), [], ((),), "https", "host"), "t.html", "rows", "v1", ())
    chosen = [("abc",), (3, None, True), ()]
    assert _item_keys(key, chosen) == [cache_key((*key[:-1], by)) for by in chosen]
    assert _item_keys(None, chosen) == [None, None, None]
