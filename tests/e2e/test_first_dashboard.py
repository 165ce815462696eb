"""Issue 34 §6: a new member's dashboard on a phone (390 x 844) leads with starting a card: "Klaar voor je eerste
plons?" and "Start Nu" inside the screen, above the bottom tab bar, without scrolling."""

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.factories import UserFactory

PLACE = """element => {
  const box = element.getBoundingClientRect();
  const bar = document.querySelector("nav[aria-label='Hoofdmenu']");
  const barBox = bar.getBoundingClientRect();
  const barShown = getComputedStyle(bar).position === "fixed" && barBox.height > 0;
  return {top: box.top, bottom: box.bottom, height: box.height, limit: barShown ? barBox.top : window.innerHeight,
          scrollY: window.scrollY};
}"""


def test_start_nu_is_in_view_on_a_new_members_phone(page):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, UserFactory(full_name="Nieuwe Noor"))
    page.goto(page.base_url + "/dashboard")
    expect(page.get_by_role("heading", name="Klaar voor je eerste plons?")).to_be_visible()
    start = page.get_by_role("button", name="Start Nu")
    expect(start).to_be_visible()
    place = start.evaluate(PLACE)
    assert place["scrollY"] == 0, place
    assert place["top"] >= 0 and place["bottom"] <= place["limit"] and place["height"] >= 44, place
    screenshot(page, "first-dashboard-390", full_page=False)
    start.click()
    expect(page).to_have_url(page.base_url + "/challenge")
    assert page.js_errors == []
