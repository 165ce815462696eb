"""Issue 17.12: `make run` serves the demo as a real site: the Dutch 404 page, not Django's English debug page
listing every URL (debug only when asked, DJANGO_DEBUG=true), on the port `PORT=...` chooses."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make_run_commands(**env) -> str:
    """What `make run` would execute (make -n prints the recipes without running them)."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PORT", "DJANGO_DEBUG", "SITE_URL")}
    result = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, env={**environment, **env}, capture_output=True, text=True, check=True
    )
    return result.stdout


def runserver_line(commands: str) -> str:
    return next(line.strip() for line in commands.splitlines() if "manage.py runserver" in line)


def test_make_run_serves_without_debug_on_port_8000_by_default():
    line = runserver_line(make_run_commands())
    assert line.startswith("DJANGO_DEBUG=false ")
    assert line.endswith("runserver 127.0.0.1:8000")


def test_port_and_debug_are_chosen_from_the_environment():
    line = runserver_line(make_run_commands(PORT="8123", DJANGO_DEBUG="true"))
    assert line.startswith("DJANGO_DEBUG=true ")
    assert line.endswith("runserver 127.0.0.1:8123")


def test_links_follow_the_port_on_localhost():
    """Issue 28 §4: invitation links printed by seed_demo and mailed by the worker follow PORT, and name
    localhost (browsers refuse passkeys on an IP address)."""
    commands = make_run_commands(PORT="8311")
    for command in ("manage.py seed_demo", "manage.py worker", "manage.py scheduler", "manage.py runserver"):
        line = next(line for line in commands.splitlines() if command in line)
        assert "SITE_URL=http://localhost:8311 " in line, line
    assert "draait op http://localhost:8311 " in commands
    assert "8000" not in commands


def test_production_site_url_wins():
    commands = make_run_commands(SITE_URL="https://koud.example")
    assert "SITE_URL=https://koud.example " in runserver_line(commands)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url) as response:  # noqa: S310 - our own loopback server
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


@pytest.fixture
def served_as_make_run_serves():
    """The development server with the settings and environment `make run` gives it."""
    port = _free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false"}
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _attempt in range(600):  # it starts in a second or two; a busy machine gets longer
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, "the development server stopped"
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait()


def test_a_wrong_address_gets_the_dutch_404_page_and_static_files_are_still_served(served_as_make_run_serves):
    status, html = _get(served_as_make_run_serves + "/bestaat-niet")
    assert status == 404
    assert "Oops! Page not found" in html
    assert "URLconf" not in html and "Using the URLconf" not in html  # Django's debug page lists every URL
    status, css = _get(served_as_make_run_serves + "/static/css/app.css")
    assert status == 200 and "--c-" in css


def test_make_run_starts_the_mail_worker_and_the_scheduler_beside_the_server():
    """Issue 32 §2: the task worker with its heartbeat (`manage.py worker`) and the scheduler, no cron."""
    commands = make_run_commands()
    assert "manage.py db_worker" not in commands
    for command in ("manage.py worker", "manage.py scheduler"):
        assert commands.index(command) < commands.index("manage.py runserver")
    assert "kill $worker $scheduler" in commands
