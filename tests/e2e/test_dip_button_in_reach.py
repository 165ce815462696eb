"""Issue 34 §1: "Plons registreren" is in reach when /challenge opens on a phone: its whole box lies inside the
viewport above the bottom tab bar, without scrolling, at 320×568, 360×740 and 390×844, and still once a photo
is chosen (the preview takes room). By layout, never by shrinking the button under 44 px."""

import pytest

from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import member_with_card

SIZES = [(320, 568), (360, 740), (390, 844)]

MEASURE = """() => {
  const button = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Plons registreren");
  const bar = document.querySelector("nav[aria-label='Hoofdmenu']");
  const box = button.getBoundingClientRect();
  const barBox = bar.getBoundingClientRect();
  // The bottom tab bar on phones (fixed); on a laptop the same links sit in the header.
  const barShown = getComputedStyle(bar).position === "fixed" && barBox.height > 0;
  return {
    top: box.top, bottom: box.bottom, left: box.left, right: box.right, height: box.height, width: box.width,
    limit: barShown ? barBox.top : window.innerHeight, innerWidth: window.innerWidth, scrollY: window.scrollY,
  };
}"""


def _assert_in_reach(page, label: str) -> None:
    box = page.evaluate(MEASURE)
    assert box["scrollY"] == 0, box
    assert box["top"] >= 0 and box["bottom"] <= box["limit"], f"{label}: {box}"
    assert box["left"] >= 0 and box["right"] <= box["innerWidth"], f"{label}: {box}"
    assert box["height"] >= 44 and box["width"] >= 44, f"{label}: {box}"


def _viewport_shot(page, name: str) -> None:
    """What the member sees on opening (not the full page: the sticky action sits where the screen ends)."""
    screenshot(page, name, full_page=False)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_plons_registreren_is_in_reach_without_scrolling(page, tmp_path, width, height):
    page.set_viewport_size({"width": width, "height": height})
    sign_in(page, member_with_card(dips=3))
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Plons registreren").wait_for()
    page.wait_for_load_state("networkidle")
    _assert_in_reach(page, "on opening")
    _viewport_shot(page, f"dip-button-{width}x{height}")

    photo = tmp_path / "zee.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(640, 480)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    page.get_by_role("img", name="Voorbeeld van je foto").wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    _assert_in_reach(page, "with a photo chosen")
    _viewport_shot(page, f"dip-button-{width}x{height}-photo")
    assert page.js_errors == []


def test_on_a_laptop_it_is_in_reach_too(page):
    """Without the tab bar (1280 px) the action waits at the screen's end all the same."""
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, member_with_card(dips=3))
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Plons registreren").wait_for()
    page.wait_for_load_state("networkidle")
    _assert_in_reach(page, "at 1280 px")
    _viewport_shot(page, "dip-button-1280x800")
