"""The proxy's "We zijn zo terug" page (deploy/caddy/errors/, issue 32 §5) in Chromium at 320, 390 and
1280 px: readable, no sideways scroll, a 44 px button, axe-clean. The app is down when it shows, so the page
has everything in itself; tests/deploy/test_stack.py checks that Caddy serves it."""

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from .conftest import screenshot

PAGE = Path(__file__).resolve().parents[2] / "deploy" / "caddy" / "errors" / "we-zijn-zo-terug.html"


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_we_zijn_zo_terug_fits_every_width(browser, width):
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="nl-NL")
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(PAGE.as_uri())
        assert page.get_by_role("heading", level=1).inner_text() == "We zijn zo terug"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        button = page.get_by_role("link", name="Probeer opnieuw").bounding_box()
        assert button["height"] >= 44 and button["x"] >= 0 and button["x"] + button["width"] <= width
        assert requests == [PAGE.as_uri()]  # nothing else to load: the app that would serve it is down
        results = Axe().run(page)
        assert results.violations_count == 0, results.generate_report()
    finally:
        screenshot(page, f"we_zijn_zo_terug_{width}")
        context.close()
