"""Issue 34 in real Chromium: a club's week with the pieces of the club layer together. An admin's weekly series,
Bram comes every week, Anna goes to the first date from the plan list; Anna proposes an afspraak, Bram goes along
and replies under it; they swim together, Bram names Anna, Anna puts it on her card, and the organiser ticks them
both "Was erbij". Each card counts one stamp for that one swim, and the club feed shows the series once."""

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.challenges.models import Challenge, Dip
from apps.events.models import Event, EventParticipant, EventSeriesMember
from apps.events.services import EventDetails, event_series_create
from apps.together.models import Meetup, Reply
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import AdminFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _member(name: str):
    member = UserFactory(full_name=name)
    UserChallengeFactory(
        user=member,
        challenge=Challenge.objects.get(category=Challenge.Category.WATERDIEREN),
        started_at=timezone.now() - datetime.timedelta(days=7),
    )
    return member


def _as(page, user) -> None:
    page.context.clear_cookies()
    sign_in(page, user)


def test_a_week_of_the_club_one_stamp_per_swim_and_one_series_item(page, settings):
    settings.DIP_SAME_SWIM_HOURS = 3  # the production rule: one swim, one stamp
    admin = AdminFactory(full_name="Anna Admin")
    anna, bram = _member("Anna Dijk"), _member("Bram Bos")
    start = timezone.now() + datetime.timedelta(hours=2)
    dates = event_series_create(
        details=EventDetails(title="Zondagduik", starts_at=start, location="Scheveningen", max_participants=20),
        repeat_until=timezone.localdate(start) + datetime.timedelta(weeks=3),
    )
    first = dates[0]

    # Bram comes every week, from the first date's page.
    _as(page, bram)
    page.goto(page.base_url + f"/events/{first.pk}")
    page.get_by_role("button", name="Ik kom elke week").click()
    expect(page.locator("#series")).to_contain_text("Je komt elke week")
    assert EventSeriesMember.objects.filter(user=bram).count() == 1
    assert EventParticipant.objects.filter(user=bram).count() == len(dates)

    # Anna goes to the first date from the plan list, where the series is one row.
    _as(page, anna)
    page.goto(page.base_url + "/samen")
    row = page.get_by_role("article").filter(has_text="Zondagduik")
    expect(row).to_have_count(1)
    row.get_by_role("button", name="Aanmelden").click()
    expect(page.get_by_text("Je bent aangemeld voor dit event!").first).to_be_visible()
    assert EventParticipant.objects.filter(user=anna, event=first).exists()

    # Anna proposes an afspraak for now; Bram goes along and replies under it.
    page.goto(page.base_url + "/samen")
    page.get_by_label("Wanneer", exact=True).fill(
        (timezone.localtime() + datetime.timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M")
    )
    page.get_by_label("Waar", exact=True).fill("Strandpaviljoen 12")
    page.get_by_role("button", name="Plonsafspraak voorstellen").click()
    expect(page.get_by_text("Je plonsafspraak staat erop. Wie gaat er mee?")).to_be_visible()
    meetup = Meetup.objects.get(proposer=anna)

    _as(page, bram)
    page.goto(page.base_url + f"/samen/{meetup.pk}")
    page.get_by_role("button", name="Ik ga mee").click()
    expect(page.get_by_text("Gaan mee: Anna Dijk, Bram Bos")).to_be_visible()
    page.get_by_label("Jouw reactie").fill("Ik ben 5 minuten later")
    page.get_by_role("button", name="Plaats reactie").click()
    expect(page.locator("section.replies")).to_contain_text("Bram Bos")
    expect(page.locator("section.replies")).to_contain_text("Ik ben 5 minuten later")
    assert Reply.objects.filter(author=bram, meetup=meetup).count() == 1
    screenshot(page, "club_week_reply")

    # They swim: Bram registers his dip and names Anna (the afspraak offers her, ticked).
    page.goto(page.base_url + "/challenge")
    briefing = page.get_by_role("heading", name="Veilig het seizoen in")
    expect(briefing).to_be_visible()
    page.get_by_role("button", name="Ik heb het gelezen").click()
    expect(briefing).to_have_count(0)
    expect(page.get_by_role("group", name="Met wie?").get_by_label("Anna Dijk")).to_be_checked()
    page.get_by_role("button", name="Plons registreren").click()
    expect(page.get_by_role("region", name="Opwarmen")).to_be_visible()

    # Anna puts Bram's tag on her card: her dip of that swim.
    _as(page, anna)
    page.goto(page.base_url + "/dashboard")
    expect(page.locator("#buddies")).to_contain_text("Bram Bos plonste met jou op")
    page.locator("#buddies").get_by_role("button", name="Zet op mijn kaart").click()
    expect(page.locator("#buddies")).to_contain_text("De plons staat op je kaart.")

    # The first date was this swim: the organiser ticks both "Was erbij", which signs off the dips they have.
    Event.objects.filter(pk=first.pk).update(event_date=timezone.now() - datetime.timedelta(minutes=30))
    _as(page, admin)
    page.goto(page.base_url + f"/admin/events/{first.pk}")
    page.get_by_role("checkbox", name="Anna Dijk").check()
    page.get_by_role("checkbox", name="Bram Bos").check()
    page.get_by_role("button", name="Aanwezigheid opslaan").click()
    expect(page.get_by_text("Stond al op de kaart, nu afgetekend: Anna Dijk, Bram Bos.")).to_be_visible()

    # One swim, one stamp on each card.
    assert Dip.objects.filter(user=anna).count() == 1
    assert Dip.objects.filter(user=bram).count() == 1
    for member in (anna, bram):
        _as(page, member)
        page.goto(page.base_url + "/challenge")
        expect(page.get_by_text("Nog 99 plonsen te gaan!")).to_be_visible()

    # The club feed: the series once, not one "Nieuw event" per date.
    page.goto(page.base_url + "/club")
    feed = page.locator("main")
    expect(feed.get_by_text("Zondagduik", exact=False)).to_have_count(1)
    expect(feed).not_to_contain_text("Nieuw event: Zondagduik")
    screenshot(page, "club_week_feed")
    # Three people take turns in one browser: a request of the previous member's page may meet the next one's
    # session and be answered 401. Anything else is an error of the pages.
    assert [error for error in page.js_errors if "status of 401" not in error] == []
