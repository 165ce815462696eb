"""Issue 34 §3 in real Chromium: "Ik kom elke week" on a date's page, an afgelast date struck through with its
reason, and the admin's folded series with its dates behind <details>; axe-clean, 44 px tap targets."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import _weekly_series
from tests.e2e.test_accessibility import assert_no_violations
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _tall_enough(locator) -> None:
    box = locator.bounding_box()
    assert box is not None and box["height"] >= 44, box


def test_ik_kom_elke_week_and_stop_again_from_a_dates_page(page):
    member = UserFactory(full_name="Marit Zwemmer")
    dates = _weekly_series()
    sign_in(page, member)
    page.set_viewport_size({"width": 320, "height": 568})
    page.goto(page.base_url + f"/events/{dates[2].pk}")
    join = page.get_by_role("button", name="Ik kom elke week")
    _tall_enough(join)
    assert_no_violations(page, "a date of a series")
    join.click()
    section = page.locator("#series")
    expect(section).to_contain_text("Top, je komt elke week! Je bent aangemeld voor 12 data.")
    stop = section.get_by_role("button", name="Ik stop met deze reeks")
    expect(stop).to_be_visible()
    _tall_enough(stop)
    assert_no_violations(page, "a date of a series, coming every week")
    screenshot(page, "series-member-320")
    stop.click()
    expect(section).to_contain_text("Je bent gestopt met deze reeks")
    expect(section.get_by_role("button", name="Ik kom elke week")).to_be_visible()


def test_an_afgelast_date_says_so_and_offers_no_sign_up(page):
    dates = _weekly_series(member=UserFactory())
    sign_in(page, UserFactory())
    page.goto(page.base_url + f"/events/{dates[1].pk}")
    expect(page.get_by_role("note")).to_contain_text("Afgelast.")
    expect(page.get_by_role("note")).to_contain_text("Storm op zee")
    expect(page.get_by_role("button", name="Aanmelden")).to_have_count(0)
    expect(page.get_by_role("button", name="Ik kom elke week")).to_have_count(0)
    expect(page.get_by_text("Jij als eerste?")).to_have_count(0)
    assert_no_violations(page, "an afgelast date")
    page.goto(page.base_url + "/events")  # the plan list: the series one row, its afgelast date among its dates
    page.get_by_text("Alle data").first.click()
    expect(page.locator(".plan-dates del").first).to_be_visible()
    expect(page.locator(".plan-dates").first).to_contain_text("Afgelast: Storm op zee")
    assert_no_violations(page, "the plan list with an afgelast date")


def test_the_admin_list_opens_a_series_dates(page):
    dates = _weekly_series(member=UserFactory())
    sign_in(page, AdminFactory(full_name="Anna Admin"))
    page.goto(page.base_url + "/admin/events/")
    summary = page.get_by_text("Alle 13 komende data van de reeks")
    _tall_enough(summary)
    summary.click()
    link = page.locator(f'a[href="/admin/events/{dates[1].pk}"]')
    expect(link.locator("del")).to_be_visible()
    assert_no_violations(page, "/admin/events with a series opened")
    screenshot(page, "series-admin-390")
    link.click()
    expect(page).to_have_url(page.base_url + f"/admin/events/{dates[1].pk}")
