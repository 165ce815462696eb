"""Issue 34 §6: after "Doe mee" on a phone (390 x 844) the page jumps to the club challenges, and the answer is
drawn there, inside the screen and above the bottom tab bar, not at the top of the page far above."""

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.factories import ClubChallengeFactory, EventFactory, UserFactory

PLACE = """element => {
  const box = element.getBoundingClientRect();
  const bar = document.querySelector("nav[aria-label='Hoofdmenu']");
  const barBox = bar.getBoundingClientRect();
  const barShown = getComputedStyle(bar).position === "fixed" && barBox.height > 0;
  return {top: box.top, bottom: box.bottom, limit: barShown ? barBox.top : window.innerHeight};
}"""
IN_VIEW = f"element => {{ const place = ({PLACE})(element); return place.top >= 0 && place.bottom <= place.limit; }}"


def assert_comes_into_view(page, locator):
    """The browser jumps to the page's #anchor once the new page has loaded: wait for that, not for a time."""
    try:
        page.wait_for_function(IN_VIEW, arg=locator.element_handle(), timeout=10_000)
    except PlaywrightTimeoutError:
        pass
    place = locator.evaluate(PLACE)
    assert place["top"] >= 0 and place["bottom"] <= place["limit"], place


def test_the_answer_to_doe_mee_is_in_view(page):
    page.set_viewport_size({"width": 390, "height": 844})
    ClubChallengeFactory(name="Decemberduik")
    for index in range(3):  # a long page: events above the fold push nothing, the jump goes far down
        EventFactory(title=f"Zondagduik {index}")
    sign_in(page, UserFactory(full_name="Nieuwe Noor"))
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("button", name="Doe mee").click()
    expect(page).to_have_url(page.base_url + "/dashboard#clubchallenges")
    answer = page.locator("#clubchallenges .message", has_text="Je doet mee met Decemberduik!")
    expect(answer).to_be_visible()
    expect(page.locator(".messages .message")).to_have_count(0)
    assert_comes_into_view(page, answer)
    screenshot(page, "doe-mee-answer-390", full_page=False)
    assert page.js_errors == []
