"""No page is wider than the screen: every screen of screens.py, at phone widths and on a laptop.

A page that scrolls sideways on a phone feels broken; the usual culprits are a long word, a row of
buttons that cannot wrap, or an element that is hidden but still takes room (a file input).
"""

import pytest

from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import SCREENS

PHONE_WIDTHS = (320, 360, 390, 414)
TABLET_WIDTH = 768
LAPTOP_WIDTH = 1280
SCREENSHOT_WIDTHS = (390, LAPTOP_WIDTH)

# The widest elements, so a failure names the culprit instead of only a number.
OVERFLOW_REPORT = """() => {
  const width = document.documentElement.clientWidth;
  const culprits = [];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.right > width + 0.5 && box.width > 0) {
      const name = element.tagName.toLowerCase() + (element.className && typeof element.className === "string"
        ? "." + element.className.trim().split(/\\s+/).join(".") : "");
      culprits.push(`${name} (right edge ${Math.round(box.right)} px)`);
    }
  }
  return {scrollWidth: document.documentElement.scrollWidth, culprits: culprits.slice(0, 5)};
}"""

NEXT_FRAME = "() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)))"


@pytest.mark.parametrize("name", list(SCREENS))
def test_no_page_scrolls_sideways(page, name):
    visit = SCREENS[name]()
    if visit.user is not None:
        sign_in(page, visit.user)
    page.goto(page.base_url + visit.path, wait_until="networkidle")

    too_wide = []
    for width in (*PHONE_WIDTHS, TABLET_WIDTH, LAPTOP_WIDTH):
        page.set_viewport_size({"width": width, "height": 844 if width < LAPTOP_WIDTH else 900})
        page.evaluate(NEXT_FRAME)
        report = page.evaluate(OVERFLOW_REPORT)
        if report["scrollWidth"] > width:
            too_wide.append(f"{width} px wide: page is {report['scrollWidth']} px; {report['culprits']}")
        if width in SCREENSHOT_WIDTHS:
            screenshot(page, f"widths-{name}-{width}")
    assert too_wide == [], f"{visit.path} scrolls sideways:\n" + "\n".join(too_wide)
