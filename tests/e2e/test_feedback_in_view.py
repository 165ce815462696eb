"""Issue 28 §3: on a phone (390 x 844) every answer of the stamp card shows where the member looks.

Each message is checked with getBoundingClientRect: inside window.innerHeight, and above the bottom bar.
"""

import re

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import member_with_card

PHONE = {"width": 390, "height": 844}

PLACE = """element => {
  const box = element.getBoundingClientRect();
  const bar = document.querySelector("nav[aria-label='Hoofdmenu']").getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, barTop: bar.top, innerHeight: window.innerHeight};
}"""


def assert_in_view(locator, what: str, *, in_dialog: bool = False) -> None:
    """In the viewport; outside a modal dialog (which lies above the whole page) also above the bottom bar."""
    expect(locator).to_be_visible()
    place = locator.evaluate(PLACE)
    assert place["top"] >= 0 and place["bottom"] <= place["innerHeight"], f"{what} is drawn out of view: {place}"
    if not in_dialog:
        assert place["bottom"] <= place["barTop"], f"{what} is under the bottom bar: {place}"


def in_view_screenshot(page, name: str) -> None:
    """What the member sees: the screen, not the whole page."""
    screenshot(page, f"feedback-in-view-{name}-390", full_page=False)


def message(page, text: str):
    return page.locator(".sc-message .message", has_text=text)


def test_every_answer_of_the_stamp_card_is_in_view_on_a_phone(page):
    page.set_viewport_size(PHONE)
    member = member_with_card(dips=12)
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")

    # A tap: the form is on the first screen, the answer too (it used to land below the screen).
    page.get_by_role("button", name="Plons registreren").click()
    assert_in_view(message(page, "Plons toegevoegd!"), "'Plons toegevoegd!'")
    in_view_screenshot(page, "added")
    page.get_by_role("button", name="Plons registreren").wait_for()

    # The latest dip's details, far down the page: the dialog's Opslaan is on the screen when it opens.
    edit = page.get_by_role("button", name=re.compile(r"^Details aanpassen: Plons 13"))
    edit.click()
    dialog = page.get_by_role("dialog", name="Plons 13 aanpassen")
    save = dialog.get_by_role("button", name="Opslaan")
    assert_in_view(save, "'Opslaan' of the edit dialog", in_dialog=True)
    in_view_screenshot(page, "edit-dialog")
    dialog.get_by_label("Plek").fill("Strand Scheveningen")
    save.click()
    expect(dialog).to_have_count(0)
    assert_in_view(message(page, "Details opgeslagen."), "'Details opgeslagen.'")

    # The undo, also far down: its answer shows on this screen, not above it.
    page.get_by_role("button", name=re.compile(r"^Ongedaan maken: Plons 13")).click()
    page.get_by_role("dialog").get_by_role("button", name="Ongedaan maken").click()
    assert_in_view(message(page, "Plons ongedaan gemaakt."), "'Plons ongedaan gemaakt.'")
    in_view_screenshot(page, "undone")

    # Without signal, scrolled to the top again: the tap waits, and the message says so on the screen.
    page.evaluate("window.scrollTo(0, 0)")
    page.context.set_offline(True)
    page.get_by_role("button", name="Plons registreren").click()
    assert_in_view(message(page, "Geen verbinding"), "the offline message")
    in_view_screenshot(page, "offline")
    expect(page.get_by_text("Wacht op verbinding")).to_be_visible()
    page.context.set_offline(False)
    # With signal again the waiting tap goes by itself: the test ends once it has arrived.
    expect(page.get_by_text("Wacht op verbinding")).to_have_count(0)
    assert member.dips.count() == 13


def test_the_message_never_blocks_the_tap_under_it(page):
    page.set_viewport_size(PHONE)
    sign_in(page, member_with_card(dips=1))
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Plons registreren").click()
    shown = message(page, "Plons toegevoegd!")
    expect(shown).to_be_visible()
    # The element under the message's centre is what lies beneath it on the page, not the message.
    under = shown.evaluate(
        """element => {
          const box = element.getBoundingClientRect();
          const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
          return element.contains(hit);
        }"""
    )
    assert under is False
