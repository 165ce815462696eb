import pytest
from django.utils import timezone

SECTIONS = [
    ("Begin je IJSKOUDE avontuur", "hero"),
    ("Hoe het werkt", "hoe-het-werkt"),
    ("Verzamel prachtige badges", "badges"),
    ("Durf de KOU te trotseren!", "durf-de-kou"),
    ("Klaar voor de uitdaging?", "klaar-voor-de-uitdaging"),
]


def test_landing_page_renders_every_section_in_order(page):
    page.goto(page.base_url + "/")
    tops = []
    for heading, section_id in SECTIONS:
        locator = page.get_by_role("heading", name=heading)
        assert locator.is_visible()
        tops.append(page.locator(f"#{section_id}").bounding_box()["y"])
    assert tops == sorted(tops)
    assert page.get_by_text("Koudwater zwem challenge").first.is_visible()
    assert page.locator("footer").get_by_text(f"© {timezone.localdate().year}").is_visible()
    badges = page.locator("#badges img")
    assert badges.count() >= 6
    # Every badge image really loaded (width known only after decoding the SVG; decode() waits for the load).
    loaded = "img => img.decode().then(() => img.naturalWidth > 0)"
    assert all(badges.nth(i).evaluate(loaded) for i in range(badges.count()))
    assert page.js_errors == []


@pytest.mark.parametrize("label", ["Start nu", "Inloggen", "Begin nu gratis"])
def test_each_button_leads_to_auth(page, label):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name=label).first.click()
    page.wait_for_url("**/auth**")
    assert page.url.startswith(page.base_url + "/auth")


def test_unknown_path_shows_the_404_page_with_a_link_home(page):
    response = page.goto(page.base_url + "/nergens/te/vinden")
    assert response.status == 404
    assert page.get_by_role("heading", name="Oops! Page not found").is_visible()
    page.get_by_role("link", name="Terug naar home").click()
    page.wait_for_url(page.base_url + "/")


def test_landing_page_loads_no_javascript(page):
    scripts = []
    page.on("request", lambda request: scripts.append(request.url) if request.resource_type == "script" else None)
    page.goto(page.base_url + "/")
    # Only the service worker's registration (about 1 KB), which every page has.
    assert [url.rsplit("/", 1)[-1].split("-")[0] for url in scripts] == ["pwa"]
