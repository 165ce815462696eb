"""Rough layout edges, measured in Chromium on a phone (390 px) and a laptop (1280 px)."""

import pytest

from tests.e2e.conftest import open_settled, screenshot, sign_in
from tests.e2e.screens import member_with_card
from tests.factories import UserFactory

WIDTHS = [390, 1280]


def open_at(page, width: int, path: str, user) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, user)
    open_settled(page, page.base_url + path)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", ["/dashboard", "/challenge"])
def test_the_first_block_starts_a_clear_step_below_the_sticky_header(page, width, path):
    open_at(page, width, path, member_with_card(dips=3))
    gap = page.evaluate(
        """() => {
          const header = document.querySelector(".site-header").getBoundingClientRect();
          const first = document.querySelector("main").firstElementChild.firstElementChild;
          return first.getBoundingClientRect().top - header.bottom;
        }"""
    )
    screenshot(page, f"layout-top-{path.strip('/')}-{width}")
    assert gap >= 16, f"{path} at {width} px: the first block is {gap:.0f} px below the header"


HEADING_SIZES = """() => [...document.querySelectorAll("main section")].flatMap(section => {
  const h2 = section.querySelector("h2");
  if (h2 === null) return [];
  const size = element => parseFloat(getComputedStyle(element).fontSize);
  return [...section.querySelectorAll("h3")].map(h3 => [h3.textContent.trim(), size(h3), size(h2)]);
})"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("with_card", [False, True], ids=["new-member", "with-card"])
def test_dashboard_h3_is_a_clear_step_below_its_h2(page, width, with_card):
    member = member_with_card(dips=7) if with_card else UserFactory()
    open_at(page, width, "/dashboard", member)
    sizes = page.evaluate(HEADING_SIZES)
    assert sizes, "the dashboard has h3 headings inside its sections"
    for text, h3_size, h2_size in sizes:
        assert h3_size <= 0.85 * h2_size, f"h3 {text!r} ({h3_size}px) looks like its h2 ({h2_size}px)"


@pytest.mark.parametrize("width", [320, *WIDTHS])
def test_the_six_milestones_stay_on_one_row(page, width):
    open_at(page, width, "/dashboard", UserFactory())
    milestones = page.get_by_role("list", name="Mijlpalen").get_by_role("listitem")
    assert milestones.count() == 6
    tops = {round(milestones.nth(i).bounding_box()["y"]) for i in range(6)}
    screenshot(page, f"layout-milestones-{width}")
    assert len(tops) == 1, f"at {width} px the milestones wrap onto {len(tops)} rows"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_landing_page_offers_the_dashboard_to_a_signed_in_member(page, width):
    open_at(page, width, "/", UserFactory())
    header = page.locator(".site-header")
    assert header.get_by_role("link", name="Inloggen").count() == 0
    header.get_by_role("link", name="Naar dashboard").click()
    page.wait_for_url("**/dashboard")


@pytest.mark.parametrize("width", [320, 360])
def test_the_header_actions_fit_on_one_row_of_a_small_phone(page, width):
    from tests.factories import AdminFactory

    open_at(page, width, "/dashboard", AdminFactory())
    header = page.locator(".site-header")
    # The spec's header: Admin and Uitloggen; the account is 'Ik' in the bottom bar (issue 28 §2).
    actions = [header.get_by_role("link", name="Admin"), header.get_by_role("button", name="Uitloggen")]
    tops = {round(action.bounding_box()["y"]) for action in actions}
    assert all(action.is_visible() for action in actions)
    assert len(tops) == 1, f"at {width} px the header's actions wrap"
    assert page.locator(".brand-logo").first.bounding_box()["width"] > 20  # the drop stays
    assert page.evaluate("document.documentElement.scrollWidth") <= width
