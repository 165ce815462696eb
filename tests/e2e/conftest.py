"""Browser tests: real Debian Chromium driven by Playwright against pytest-django's live_server."""

import os
import re
import shutil
import time
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls in fixtures are still sync.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}
# Screenshots are for a person to look at (`make screenshots`): with SCREENSHOTS=1 every named one and one after
# each browser test land in test-artifacts/screenshots/. Without it only a failed test leaves one: a full-page
# screenshot costs a third of a second, and nobody looks at them in CI.
LOOKING = os.environ.get("SCREENSHOTS", "") not in ("", "0")
FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def _first_visit_styles(first_visit_styles):
    """A new browser context is a first visit: its stylesheets come inline, as on a real phone's first visit."""


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make test`, which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server, request):
    context = browser.new_context(viewport=PHONE, locale="nl-NL", timezone_id="Europe/Amsterdam")
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console", lambda msg: errors.append(msg.text) if msg.type == "error" and "favicon" not in msg.text else None
    )
    page.base_url = live_server.url
    page.js_errors = errors
    yield page
    if request.node.stash.get(FAILED, False):
        save_screenshot(page, request.node.name)
    else:
        screenshot(page, request.node.name)
    context.close()
    requests_finished()


def requests_finished(seconds: float = 10) -> None:
    """Waits until no request of the live server is still working in the database: a page may leave one running
    as the test ends (a queued tap sent on the way out, a poll), and the flush after the test (TRUNCATE) would
    deadlock with its transaction. Then the flush goes ahead either way."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + seconds
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)


def screenshot(target, name: str, *, full_page: bool = True) -> None:
    """A screenshot of a page (the whole page unless `full_page` is False) or of one element (a locator), for a
    person to look at: only with SCREENSHOTS=1 (LOOKING)."""
    if LOOKING:
        save_screenshot(target, name, full_page=full_page)


def save_screenshot(target, name: str, *, full_page: bool = True) -> None:
    """Screenshots are test artefacts (not committed): test-artifacts/screenshots/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
    options = {"full_page": True} if full_page and hasattr(target, "set_viewport_size") else {}
    try:
        target.screenshot(path=str(path), **options)
    except Exception:  # noqa: BLE001,S110 - a failed screenshot must not hide the test's own result
        pass


# The islands' entry scripts (built by Vite into /static/assets/); the service worker's register script (pwa-*) is
# on every page and draws nothing.
ISLAND_SCRIPTS = "script[type=module][src*='/assets/']:not([src*='/assets/pwa-'])"


def open_settled(page, url: str) -> None:
    """Open `url` and wait until the page is what a person sees: at its load event when it has no island (nothing
    draws on it afterwards), else once the network has been quiet for half a second (an island's lazy parts)."""
    page.goto(url, wait_until="load")
    if page.locator(ISLAND_SCRIPTS).count():
        page.wait_for_load_state("networkidle")


def sign_in(page, user) -> None:
    """Give the browser a signed-in session for `user` without going through the /auth form."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": page.base_url}])
