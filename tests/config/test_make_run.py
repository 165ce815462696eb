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


SCRIPT = ROOT / "tools/serve_demo.sh"


def make_run_commands(**env) -> str:
    """What `make run` would execute (make -n prints the recipes without running them), then the script it calls
    (tools/serve_demo.sh, whose steps the newcomer's journey in tests/newcomer/ runs too)."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PORT", "DJANGO_DEBUG", "SITE_URL")}
    result = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, env={**environment, **env}, capture_output=True, text=True, check=True
    )
    return result.stdout


def script_line(commands: str) -> str:
    return next(line for line in commands.splitlines() if line.endswith("tools/serve_demo.sh"))


def test_make_run_serves_without_debug_on_port_8000_by_default():
    line = script_line(make_run_commands())
    assert "PORT=8000 " in line and "DJANGO_DEBUG=false " in line
    script = SCRIPT.read_text()
    assert 'DJANGO_DEBUG="${DJANGO_DEBUG:-false}"' in script
    assert 'manage.py runserver "127.0.0.1:$PORT"' in script


def test_port_and_debug_are_chosen_from_the_environment():
    line = script_line(make_run_commands(PORT="8123", DJANGO_DEBUG="true"))
    assert "PORT=8123 " in line and "DJANGO_DEBUG=true " in line


def test_links_follow_the_port_on_localhost():
    """Issue 28 §4: invitation links printed by seed_demo and mailed by the worker follow PORT, and name
    localhost (browsers refuse passkeys on an IP address)."""
    line = script_line(make_run_commands(PORT="8311"))
    assert "SITE_URL=http://localhost:8311 " in line
    script = SCRIPT.read_text()
    # Exported before seed_demo, the worker, the scheduler and the server start: all of them follow it.
    exported = script.index('export SITE_URL="${SITE_URL:-http://localhost:$PORT}"')
    for command in ("manage.py seed_demo", "manage.py worker", "manage.py scheduler", "manage.py runserver"):
        assert exported < script.index(command), command
    assert "draait op http://localhost:$PORT " in script


def test_production_site_url_wins():
    assert "SITE_URL=https://koud.example " in script_line(make_run_commands(SITE_URL="https://koud.example"))


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
    commands = SCRIPT.read_text()
    assert "manage.py db_worker" not in commands
    for command in ("manage.py worker", "manage.py scheduler"):
        assert commands.index(command) < commands.index("manage.py runserver")
    assert "kill $worker $scheduler" in commands
