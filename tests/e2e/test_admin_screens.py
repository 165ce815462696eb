"""Issue 28 §5: the admin's screens at a laptop and a phone width. /admin's invitation table shows its
action buttons whole; the Django admin's challenge and event forms (add and change) fit the screen, show
the badge-image upload, and pass axe (every field labelled); the photo collage's captions are whole on a
phone."""

import pytest

from apps.challenges.models import Challenge
from apps.invitations.services import invitation_create
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.screens import member_with_card
from tests.e2e.test_accessibility import assert_no_violations
from tests.e2e.test_screens import NEXT_FRAME, OVERFLOW_REPORT
from tests.factories import AdminFactory, EventFactory, EventGuestFactory

# Every action button of the invitation table lies whole inside the table's box, which does not scroll.
CLIPPED_ACTIONS = """() => [...document.querySelectorAll(".adm-table-wrap")].flatMap((wrap) => {
    const edge = wrap.getBoundingClientRect().right;
    const cut = [...wrap.querySelectorAll("td button, td a")]
        .filter((b) => b.getBoundingClientRect().right > edge + 0.5 || b.scrollWidth > b.clientWidth + 1)
        .map((b) => b.textContent.trim());
    const cells = [...wrap.querySelectorAll("td.adm-actions-cell")]
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => "cell: " + cell.textContent.trim());
    return [...cut, ...cells, ...(wrap.scrollWidth > wrap.clientWidth + 1 ? ["the table scrolls"] : [])];
})"""


def test_the_invitation_actions_are_not_cut_off_at_1280(page):
    admin = AdminFactory(full_name="Anna Admin")
    invitation_create(invited_by=admin)
    invitation_create(invited_by=admin, email="marit.van.der.zwemmer@zwemclub-voorbeeld.nl")
    sign_in(page, admin)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(page.base_url + "/admin", wait_until="networkidle")
    page.locator("table td button").first.wait_for()
    screenshot(page, "admin-1280")
    assert page.evaluate(CLIPPED_ACTIONS) == []
    # The address stays whole on its line, not broken mid-word (issue 28 §5).
    address = page.locator("td.adm-email-cell .adm-email-text").first
    assert address.evaluate("(e) => e.getClientRects().length === 1 && e.offsetHeight < 30")
    assert address.get_attribute("title") == "marit.van.der.zwemmer@zwemclub-voorbeeld.nl"


DJANGO_ADMIN_LISTS = ["accounts/user", "events/event", "events/eventguest", "challenges/challenge"]


def _django_admin_forms():
    challenge = Challenge.objects.get(target_dips=5)
    event = EventFactory(open_for_guests=True)  # the change page shows its guest link and the link to its guests
    EventGuestFactory(event=event, name="Gijsbertus van den Hoogenband", email="gijsbertus@zwemclub-voorbeeld.nl")
    return {
        "challenge-add": "/django-admin/challenges/challenge/add/",
        "challenge-change": f"/django-admin/challenges/challenge/{challenge.pk}/change/",
        "event-add": "/django-admin/events/event/add/",
        "event-change": f"/django-admin/events/event/{event.pk}/change/",
    }


@pytest.mark.parametrize("width", [1280, 390])
def test_the_django_admin_forms_fit_show_the_upload_and_pass_axe(page, width):
    sign_in(page, AdminFactory())
    page.set_viewport_size({"width": width, "height": 900})
    for name, path in _django_admin_forms().items():
        page.goto(page.base_url + path, wait_until="networkidle")
        page.evaluate(NEXT_FRAME)
        screenshot(page, f"django-admin-{name}-{width}")
        report = page.evaluate(OVERFLOW_REPORT)
        assert report["scrollWidth"] <= width, (name, width, report)
        if name.startswith("challenge"):
            upload = page.locator("input[type=file]").first
            box = upload.bounding_box()
            assert box and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box)
        assert_no_violations(page, f"{name} at {width}")


# Each caption line of the photo collage whole: no name or date cut off with "…" or by its tile, and no
# word split over two lines ("Zwaluwen-" / "staart"); a compound breaks at its hyphen.
CUT_CAPTIONS = """() => {
  const cut = [];
  for (const figure of document.querySelectorAll(".adm-photo-grid figure")) {
    const tile = figure.getBoundingClientRect();
    const caption = figure.querySelector("figcaption").getBoundingClientRect();
    if (caption.top < tile.top - 0.5 || caption.bottom > tile.bottom + 0.5) cut.push("caption outside its tile");
    for (const line of figure.querySelectorAll("figcaption span")) {
      if (line.scrollWidth > line.clientWidth + 0.5) cut.push(`cut: ${line.textContent}`);
      const text = line.firstChild;
      for (const word of text.data.matchAll(/[^\\s-]+/g)) {
        const range = document.createRange();
        range.setStart(text, word.index);
        range.setEnd(text, word.index + word[0].length);
        const rows = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
        if (rows.size > 1) cut.push(`split: ${word[0]}`);
      }
    }
  }
  return cut;
}"""


@pytest.mark.parametrize("width", [320, 360, 390, 1280])
def test_the_collage_captions_are_whole_on_a_phone(page, width):
    member_with_card(dips=6, photo_every=2)  # 'Wieke Waterhoen-Van der Zwaluwenstaart'
    sign_in(page, AdminFactory())
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(page.base_url + "/admin", wait_until="networkidle")
    page.get_by_role("button", name="Foto's laden").click()
    page.locator(".adm-photo-grid figcaption").first.wait_for()
    page.evaluate(NEXT_FRAME)
    screenshot(page, f"admin-collage-{width}")
    assert page.locator(".adm-photo-grid figcaption").count() == 3
    assert page.evaluate(CUT_CAPTIONS) == [], f"at {width} px"


@pytest.mark.parametrize("width", [390, 1280])
def test_the_django_admin_index_and_lists_pass_axe(page, width):
    """The index and the users', events' and challenges' lists, with their 44 px targets on a phone."""
    sign_in(page, AdminFactory())
    EventGuestFactory()
    page.set_viewport_size({"width": width, "height": 900})
    for path in ["/django-admin/", *(f"/django-admin/{model}/" for model in DJANGO_ADMIN_LISTS)]:
        page.goto(page.base_url + path, wait_until="networkidle")
        assert_no_violations(page, f"{path} at {width}")
