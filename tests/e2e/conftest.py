"""Browser tests: real Debian Chromium driven by Playwright against pytest-django's live_server."""

import os
import re
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls in fixtures are still sync.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}


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
    screenshot(page, request.node.name)
    context.close()


def screenshot(page, name: str) -> Path:
    """Screenshots are test artefacts (not committed): test-artifacts/screenshots/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
    try:
        page.screenshot(path=str(path), full_page=True)
    except Exception:  # noqa: BLE001,S110 - a failed screenshot must not hide the test's own result
        pass
    return path


def sign_in(page, user) -> None:
    """Give the browser a signed-in session for `user` without going through the /auth form."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": page.base_url}])
