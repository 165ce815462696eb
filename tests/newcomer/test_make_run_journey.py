"""Issue 46 §3: the newcomer's path, as `make run` serves it. tools/serve_demo.sh (the very script of `make run`)
on a fresh SQLite file, with the worker and the scheduler beside runserver, driven in Chromium: the demo member
signs in, dips with a photo, opens every tab and undoes the dip; the demo admin sets up her second factor and
opens /admin. Any answer of 500 or more, or a page that is not the app's Dutch, fails; and the first look of
the scheduler's Systeemstatus mails no false alarm (§5)."""

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value
from playwright.sync_api import Page, expect

from apps.demo.demo_data import DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD, DEMO_MEMBER_EMAIL, DEMO_MEMBER_PASSWORD
from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import CHROMIUM, PHONE, screenshot

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# Guards against a server that never comes up (the migrations of a fresh file take a while on a busy machine):
# the waits end on the state, this only turns a hang into a failure with the log.
STARTUP_LIMIT = 900.0
# Playwright's waits for a state; the server (runserver, on a busy machine) may take its time to reach it.
WAIT = 60_000
TABS = [("Vandaag", "/dashboard"), ("Kaart", "/challenge"), ("Samen", "/samen"), ("Club", "/club"), ("Ik", "/account")]
# Django's own pages, in English: what a newcomer must never see.
ENGLISH = re.compile(r"Server Error|Bad Request|Forbidden \(|Not Found|Page not found|CSRF verification failed")
FALSE_ALARMS = ("draait niet: nog nooit gezien", "Er is nog nooit een back-up gemaakt")


@dataclass(frozen=True)
class Site:
    url: str
    log: Path
    database: Path
    process: subprocess.Popen


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _log_tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:] if log.exists() else ""


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - our own loopback server
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _wait_until(state, *, what: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_LIMIT
    while not state():
        if process.poll() is not None:
            pytest.fail(f"tools/serve_demo.sh stopped ({process.returncode}) before {what}:\n{_log_tail(log)}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} after {STARTUP_LIMIT:.0f} s:\n{_log_tail(log)}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """`make run` on a fresh SQLite file and a free port; everything it started is stopped at the end."""
    folder = tmp_path_factory.mktemp("make-run")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG")}
    env.update(
        PY=sys.executable,
        PORT=str(port),
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        MEDIA_ROOT=str(folder / "media"),
        BACKUP_DIR=str(folder / "backups"),
    )
    env.pop("REDIS_URL", None)  # as on a fresh clone: the cache in the database
    log = folder / "serve.log"
    with log.open("wb") as out:
        # Its own process group: the script, runserver (and its reloader), the worker and the scheduler stop together.
        process = subprocess.Popen(  # noqa: S603 - our own script
            ["bash", str(ROOT / "tools" / "serve_demo.sh")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://localhost:{port}"
        _wait_until(lambda: _answers(url + "/healthz"), what="answer on /healthz", process=process, log=log)
        yield Site(url=url, log=log, database=folder / "db.sqlite3", process=process)
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=60)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser, site, request):
    """A phone-sized page that records every answer and uncaught script error of its context."""
    contexts = []

    def make() -> Page:
        context = browser.new_context(viewport=PHONE, locale="nl-NL", timezone_id="Europe/Amsterdam")
        context.set_default_timeout(WAIT)
        page = context.new_page()
        page.answers = []
        page.script_errors = []
        context.on("response", lambda response: page.answers.append((response.status, response.url)))
        page.on("pageerror", lambda error: page.script_errors.append(str(error)))
        contexts.append((context, page))
        return page

    yield make
    for index, (context, page) in enumerate(contexts):
        screenshot(page, f"{request.node.name}-{index}")
        context.close()


@pytest.fixture(autouse=True)
def server_log_on_failure(request):
    """What the server logged shows under a failing test (pytest prints a test's captured output on failure)."""
    yield
    if "site" in request.fixturenames:
        print(_log_tail(request.getfixturevalue("site").log))


def assert_dutch_and_no_error(page: Page) -> None:
    """The page is the app's own (Dutch), no answer so far was a server error, no script broke."""
    failed = [(status, url) for status, url in page.answers if status >= 500]
    assert not failed, f"server errors: {failed}"
    assert page.locator("html").get_attribute("lang") == "nl", page.url
    text = page.locator("body").inner_text()
    assert not ENGLISH.search(text), f"an English error page at {page.url}: {text[:300]}"
    assert not page.script_errors, page.script_errors


def sign_in(page: Page, site: Site, email: str, password: str) -> None:
    page.goto(site.url + "/auth")
    page.get_by_label("E-mailadres").fill(email)
    page.get_by_label("Wachtwoord", exact=True).fill(password)
    page.get_by_role("button", name="Inloggen", exact=True).click()
    expect(page).not_to_have_url(re.compile(r"/auth"), timeout=WAIT)
    assert_dutch_and_no_error(page)


def test_the_demo_member_dips_with_a_photo_opens_every_tab_and_undoes_it(site, open_page, tmp_path):
    page = open_page()
    sign_in(page, site, DEMO_MEMBER_EMAIL, DEMO_MEMBER_PASSWORD)
    page.goto(site.url + "/challenge")
    assert_dutch_and_no_error(page)
    start = page.get_by_role("button", name="Start Nu")
    if start.count():  # the demo member has a card under way; a new member starts one here
        start.first.click()
    photo = tmp_path / "IMG_0001.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(320, 240)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    page.get_by_role("button", name="Plons registreren").click()
    expect(page.get_by_text("Plons toegevoegd!").first).to_be_visible(timeout=WAIT)
    assert_dutch_and_no_error(page)

    nav = page.get_by_role("navigation", name="Hoofdmenu")
    for label, path in TABS:
        nav.get_by_role("link", name=label, exact=True).click()
        expect(page).to_have_url(site.url + path, timeout=WAIT)
        expect(nav.get_by_role("link", name=label, exact=True)).to_have_attribute("aria-current", "page", timeout=WAIT)
        assert_dutch_and_no_error(page)

    page.goto(site.url + "/challenge")
    page.get_by_role("button", name=re.compile(r"^Ongedaan maken")).first.click()
    page.get_by_role("dialog", name="Plons ongedaan maken?").get_by_role("button", name="Ongedaan maken").click()
    expect(page.get_by_text("Plons ongedaan gemaakt.").first).to_be_visible(timeout=WAIT)
    assert_dutch_and_no_error(page)


def test_the_demo_admin_sets_up_a_second_factor_and_opens_admin(site, open_page):
    page = open_page()
    sign_in(page, site, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD)
    page.goto(site.url + "/admin")
    # The admin role asks for a second factor first (seed_demo says so): the authenticator app.
    page.get_by_role("link", name="Authenticator-app instellen").click()
    if "/auth/opnieuw" in page.url:  # a sensitive step: the password once more
        page.get_by_label("Je wachtwoord").fill(DEMO_ADMIN_PASSWORD)
        page.get_by_role("button", name="Bevestigen").click()
    secret = page.locator("#authenticator_secret").input_value()
    page.get_by_label("Code uit de app (6 cijfers)").fill(format_hotp_value(hotp_value(secret, int(time.time()) // 30)))
    page.get_by_role("button", name="Zet de app aan").click()
    expect(page).not_to_have_url(re.compile(r"/app/instellen"), timeout=WAIT)
    assert_dutch_and_no_error(page)

    page.goto(site.url + "/admin")
    expect(page).to_have_url(site.url + "/admin", timeout=WAIT)
    expect(page.locator("#systeemstatus").get_by_role("heading", name="Systeemstatus")).to_be_visible(timeout=WAIT)
    assert_dutch_and_no_error(page)


def test_the_first_look_of_the_systeemstatus_mails_no_false_alarm(site):
    """The scheduler looks as soon as it starts, before the worker's first heartbeat and long before the
    first backup: neither is an alarm on a fresh installation (issue 46 §5)."""

    def looked() -> bool:
        with sqlite3.connect(site.database, timeout=30) as database:
            query = "SELECT 1 FROM operations_jobrun WHERE job = 'check_status' AND finished_at IS NOT NULL"
            return database.execute(query).fetchone() is not None

    _wait_until(looked, what="first look of check_status", process=site.process, log=site.log)
    log = site.log.read_text(errors="replace")
    assert not [line for line in FALSE_ALARMS if line in log], _log_tail(site.log)
