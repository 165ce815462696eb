"""Every screen of screens.py as a person meets it, each opened once: no page is wider than the screen at phone
widths and on a laptop, and every link and button is at least 44 x 44 px at 390 px (issue 28 §2).

A page that scrolls sideways on a phone feels broken; the usual culprits are a long word, a row of
buttons that cannot wrap, or an element that is hidden but still takes room (a file input).
"""

import pytest

from tests.e2e.conftest import PHONE, open_settled, screenshot, sign_in
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

# Every visible link and button, with its size. Exempt by rule (WCAG 2.5.8's inline exception): a link
# inside a sentence, i.e. a link in a <p> that holds more text than the link. Not measured: what the
# page hides (display none, a closed dialog) and the skip link parked above the page until it is focused.
SMALL_TARGETS = """() => {
  const small = [];
  const targets = document.querySelectorAll(
    "a[href], button, summary, [role='button'], [role='link'], input[type='submit'], input[type='button']");
  for (const el of targets) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.bottom + window.scrollY <= 0) continue;
    const sentence = el.tagName === "A" ? el.parentElement.closest("p") : null;
    if (sentence !== null && sentence.textContent.trim() !== el.textContent.trim()) continue;
    if (box.width < 43.5 || box.height < 43.5) {
      const name = (el.getAttribute("aria-label") || el.textContent || el.className || "").trim().replace(/\\s+/g, " ");
      const size = `${Math.round(box.width)}x${Math.round(box.height)}`;
      small.push(`${el.tagName.toLowerCase()} "${name.slice(0, 40)}" ${size}`);
    }
  }
  return small;
}"""


def open_the_admin_tables_and_a_photo(page):
    page.get_by_role("button", name="Foto's laden").click()
    page.get_by_role("button", name="Gebruikers laden").click()
    page.get_by_role("columnheader").first.wait_for()
    page.locator(".adm-photo-button").first.click()
    page.locator("dialog.adm-lightbox[open]").wait_for()


def open_a_photo(page):
    page.locator(".sc-photo").first.click()
    page.locator("dialog.sc-lightbox[open]").wait_for()


# Sizes are read once the page has settled: a dialog opens with a brief zoom (0.98 to 1).
SETTLE_ANIMATIONS = """() => Promise.all(
    document.getAnimations()
        .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
        .map((a) => a.finished.catch(() => null))
)"""

# What a screen shows only after a tap: measured too.
OPENED = {"admin": open_the_admin_tables_and_a_photo, "challenge-dips-and-photos": open_a_photo}


@pytest.mark.parametrize("name", list(SCREENS))
def test_no_page_scrolls_sideways_and_every_target_is_44_px(page, name):
    visit = SCREENS[name]()
    if visit.user is not None:
        sign_in(page, visit.user)
    open_settled(page, page.base_url + visit.path)

    found = []
    for width in (*PHONE_WIDTHS, TABLET_WIDTH, LAPTOP_WIDTH):
        page.set_viewport_size({"width": width, "height": 844 if width < LAPTOP_WIDTH else 900})
        page.evaluate(NEXT_FRAME)
        report = page.evaluate(OVERFLOW_REPORT)
        if report["scrollWidth"] > width:
            found.append(f"{width} px wide: page is {report['scrollWidth']} px; {report['culprits']}")
        if width in SCREENSHOT_WIDTHS:
            screenshot(page, f"widths-{name}-{width}")

    page.set_viewport_size(PHONE)
    page.evaluate(NEXT_FRAME)
    small = page.evaluate(SMALL_TARGETS)
    if name in OPENED:
        OPENED[name](page)
        page.evaluate(SETTLE_ANIMATIONS)
        small += [f"(opened) {target}" for target in page.evaluate(SMALL_TARGETS)]
    found += [f"tap target under 44 x 44 px at 390 px: {target}" for target in small]
    assert found == [], f"{visit.path}:\n" + "\n".join(found)
