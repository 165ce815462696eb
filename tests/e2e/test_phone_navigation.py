"""Issue 28 §2: an app's navigation on the phone, and tap targets a cold finger hits.

The bottom bar (Vandaag, Kaart, Samen, Club, Ik; the club's events are in Samen's one list of plans) on phones,
the same links in the header on a laptop, only for signed-in members; the bar's own targets on a 320 px phone.
Every other link and button of every screen is measured by the screen walk (test_screens.py).
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import member_with_card
from tests.factories import UserFactory

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
MAIN_PAGES = [
    ("/dashboard", "Vandaag"),
    ("/challenge", "Kaart"),
    ("/club", "Club"),
    ("/samen", "Samen"),
    ("/events", "Samen"),  # the old list of events leads to the plan list
    ("/account", "Ik"),
]

BAR = """() => {
  const nav = document.querySelector("nav[aria-label='Hoofdmenu']");
  const box = nav.getBoundingClientRect();
  return {
    position: getComputedStyle(nav).position,
    top: box.top, bottom: box.bottom, left: box.left, right: box.right,
    innerHeight: window.innerHeight, innerWidth: window.innerWidth,
    headerBottom: document.querySelector(".site-header").getBoundingClientRect().bottom,
  };
}"""


@pytest.mark.parametrize(("path", "label"), MAIN_PAGES)
def test_the_bottom_bar_on_a_phone_marks_the_page_the_member_is_on(page, path, label):
    page.set_viewport_size(PHONE)
    sign_in(page, member_with_card(dips=2))
    page.goto(page.base_url + path)

    nav = page.get_by_role("navigation", name="Hoofdmenu")
    expect(nav.get_by_role("link")).to_have_text(["Vandaag", "Kaart", "Samen", "Club", "Ik"])
    expect(nav.locator("[aria-current='page']")).to_have_count(1)
    expect(nav.get_by_role("link", name=label, exact=True)).to_have_attribute("aria-current", "page")
    bar = page.evaluate(BAR)
    assert bar["position"] == "fixed"
    assert bar["bottom"] == bar["innerHeight"] and bar["left"] == 0 and bar["right"] == bar["innerWidth"]

    # The end of the page (the footer) scrolls clear of the bar instead of hiding under it. An island may still
    # grow the page after load (the stamp card's lazy parts): scroll to the end again until it has settled.
    page.wait_for_load_state("networkidle")
    for _ in range(20):
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        footer_bottom = page.evaluate("document.querySelector('.site-footer').getBoundingClientRect().bottom")
        if footer_bottom <= bar["top"] + 0.5:
            break
        page.wait_for_timeout(150)
    assert footer_bottom <= bar["top"] + 0.5, f"the footer ends at {footer_bottom}, under the bar at {bar['top']}"


def test_the_bar_is_reached_by_keyboard_and_leads_to_each_page(page):
    page.set_viewport_size(PHONE)
    sign_in(page, member_with_card(dips=1))
    page.goto(page.base_url + "/dashboard")
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Vandaag", exact=True)).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/challenge")
    expect(page.get_by_role("link", name="Kaart", exact=True)).to_have_attribute("aria-current", "page")
    page.get_by_role("link", name="Samen", exact=True).click()
    page.wait_for_url("**/samen")
    page.get_by_role("link", name="Club", exact=True).click()
    page.wait_for_url("**/club")
    page.get_by_role("link", name="Ik", exact=True).click()
    page.wait_for_url("**/account")
    assert page.js_errors == []


def test_on_a_laptop_the_links_stand_in_the_header(page):
    page.set_viewport_size(LAPTOP)
    sign_in(page, UserFactory())
    page.goto(page.base_url + "/samen")
    bar = page.evaluate(BAR)
    assert bar["position"] != "fixed"
    assert bar["bottom"] <= bar["headerBottom"], "the links are in the header row"
    nav = page.get_by_role("navigation", name="Hoofdmenu")
    expect(nav.get_by_role("link", name="Samen")).to_have_attribute("aria-current", "page")
    expect(nav.locator("svg").first).to_be_hidden()  # words only in the header
    screenshot(page, "navigation-header-1280")


@pytest.mark.parametrize("path", ["/", "/auth", "/offline"])
def test_a_visitor_who_is_not_signed_in_gets_no_bar(page, path):
    page.goto(page.base_url + path)
    expect(page.get_by_role("navigation", name="Hoofdmenu")).to_have_count(0)


def test_five_tabs_fit_a_320_px_phone_with_44_px_targets(page):
    page.set_viewport_size({"width": 320, "height": 640})
    sign_in(page, UserFactory())
    page.goto(page.base_url + "/club")
    links = page.get_by_role("navigation", name="Hoofdmenu").get_by_role("link")
    expect(links).to_have_count(5)
    for box in (links.nth(index).bounding_box() for index in range(5)):
        assert box is not None and box["width"] >= 44 and box["height"] >= 44 and box["x"] + box["width"] <= 320
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
