"""Issue 32: the compose stack started natively (tests/deploy/conftest.py): a member's dip with a photo over
HTTPS, an export sent by the proxy from the media volume, a mail through the worker, a scheduled job through
the scheduler, the slow-upload guarantee through Caddy, and the Dutch page while web is down (last: it stops
web). The worker and scheduler parts need apps/operations' commands and skip, saying so, without them."""

import gzip
import io
import os
import re
import time
import uuid
import zipfile

import pytest
from django.utils import timezone

from apps.challenges.models import Dip
from apps.logbook.models import MemberExport
from tests.cluster import test_slow_uploads
from tests.cluster.members import PASSWORD, member_with_card
from tests.support import cluster as parts

from . import stack

pytestmark = pytest.mark.deploy


def wait_for(condition, *, what: str, seconds: float = 120):
    """Until `condition()` is truthy (a state, not a time); the bound only ends a hung run."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.2)
    raise AssertionError(f"still waiting for {what} after {seconds} s")


def signed_in(running_stack, email: str):
    user, card = member_with_card(email)
    browser = running_stack.browser()
    browser.sign_in(user.email, PASSWORD)
    return user, card, browser


def assert_health_check_passes(running_stack, service: str) -> None:
    """compose.yaml's health check of the service, run natively, exits 0 (`manage.py alive ...`)."""
    if not command_exists_for_health_check(service):
        pytest.skip(f"the {service}'s health check command (apps/operations) is not on this branch yet")
    # The heartbeat is written every 20 s; a test before this one may have emptied the test database, and with it
    # the process's row, so wait for the next beat (a state), as Docker's health check retries.
    last = None

    def passes():
        nonlocal last
        last = stack.health_check(service, env=running_stack.envs[service])
        return last.returncode == 0

    try:
        wait_for(passes, what=f"the {service}'s health check", seconds=90)
    except AssertionError as error:
        raise AssertionError(f"{error}: {last.stdout + last.stderr if last else ''}") from None


def command_exists_for_health_check(service: str) -> bool:
    from django.core.management import get_commands

    return stack.manage_command(service, part="healthcheck") in get_commands()


def test_http_goes_to_https_with_a_certificate_the_client_trusts(running_stack):
    plain = parts.Browser(port=running_stack.http_port, host=stack.DOMAIN)
    answer = plain.get("/dashboard")
    assert answer.status == 308
    assert answer.headers["Location"].startswith(f"https://{stack.DOMAIN}")
    home = running_stack.browser().get("/")  # certificate verified against Caddy's local CA
    assert home.status == 200 and "Koud water challenge" in home.text
    assert "max-age=" in home.headers["Strict-Transport-Security"]  # Django saw https (X-Forwarded-Proto)


def test_a_member_registers_a_dip_with_a_photo_over_https(running_stack):
    _user, card, browser = signed_in(running_stack, "foto@example.nl")
    answer = browser.register_dip(photo=parts.phone_photo(400_000))
    assert answer.status == 201, answer.text[:300]
    (dip,) = Dip.objects.filter(user_challenge=card)
    assert dip.photo
    # The photo is in the media volume web, worker and scheduler share, not inside the web container.
    assert (running_stack.media_root / "dip_photos" / dip.photo.name).is_file()
    assert browser.get("/dashboard").status == 200


def test_the_proxy_sends_a_prepared_export_from_the_media_volume(running_stack):
    user, _card, browser = signed_in(running_stack, "export@example.nl")
    content = b"PK\x05\x06" + b"\0" * 18  # an empty ZIP
    name = f"{user.pk}-handgemaakt.zip"
    (running_stack.media_root / "exports").mkdir(exist_ok=True)
    (running_stack.media_root / "exports" / name).write_bytes(content)
    now = timezone.now()
    MemberExport.objects.create(
        user=user, status=MemberExport.Status.READY, file_name=name, size=len(content), requested_at=now, ready_at=now
    )
    link = browser.get("/account/export/download")
    assert link.status == 302
    download = browser.get(link.headers["Location"])
    assert download.status == 200
    assert download.body == content  # the app answered with an empty body and X-Accel-Redirect: Caddy sent this
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert "X-Accel-Redirect" not in download.headers
    # Only the app's answer leads to the file; asking for it directly reaches the app, which knows no such page.
    assert running_stack.browser().get(f"/protected-exports/{name}").status == 404


def test_gunicorn_starts_without_a_control_socket(running_stack):
    assert not (running_stack.workdir / "home" / ".gunicorn").exists()
    assert "Permission denied" not in running_stack.web.log.read_text()


def test_the_worker_mails_and_builds_the_export_with_the_photos(running_stack):
    if running_stack.worker is None:
        pytest.skip("compose.yaml's worker command (manage.py worker, apps/operations) is not on this branch yet")
    _user, _card, browser = signed_in(running_stack, "zip@example.nl")
    assert browser.register_dip(photo=parts.phone_photo(200_000)).status == 201
    asked = browser.post_form("/account/export", {}, token=browser.csrf_token("/account"))
    assert asked.status == 302
    mail = wait_for(lambda: running_stack.inbox.messages, what="the worker's 'Je gegevens staan klaar' mail")[0]
    assert "klaar" in mail["Subject"]
    assert running_stack.inbox.envelopes[0].mail_from == "noreply@koudwater.example"  # .env.example's sender
    link = browser.get("/account/export/download")
    download = browser.get(link.headers["Location"])
    assert download.status == 200
    names = zipfile.ZipFile(io.BytesIO(download.body)).namelist()
    assert any(re.search(r"\.(jpe?g|webp)$", name) for name in names), names  # the photo came along
    assert_health_check_passes(running_stack, "worker")


def test_the_scheduler_runs_a_scheduled_job(running_stack):
    if running_stack.scheduler is None:
        pytest.skip("compose.yaml's scheduler command (manage.py scheduler, apps/operations) is not on this branch yet")
    # A file in the exports folder that no export points to, two days old: delete_old_exports removes it.
    stray = running_stack.media_root / "exports" / f"{uuid.uuid4().hex}.zip"
    stray.parent.mkdir(exist_ok=True)
    stray.write_bytes(b"oud")
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(stray, (two_days_ago, two_days_ago))
    wait_for(lambda: not stray.exists(), what="the scheduler's delete_old_exports")
    assert_health_check_passes(running_stack, "scheduler")


def test_pages_go_compressed_through_caddy(running_stack):
    _user, _card, browser = signed_in(running_stack, "gzip@example.nl")
    packed = browser.request("GET", "/dashboard", headers={"Accept-Encoding": "gzip"})
    assert packed.status == 200
    assert packed.headers.get("Content-Encoding") == "gzip"
    page = gzip.decompress(packed.body).decode()
    assert page.rstrip().endswith("</html>")
    plain = browser.request("GET", "/dashboard")
    assert plain.headers.get("Content-Encoding") is None
    assert len(packed.body) * 2 < len(plain.body)


def test_five_slow_photo_uploads_through_caddy_hold_no_worker_and_all_arrive(running_stack):
    # The very test of tests/cluster/ (nginx), through Caddy: bodies are buffered before gunicorn sees them.
    test_slow_uploads.test_five_slow_photo_uploads_hold_no_worker_and_all_arrive(running_stack)


def test_while_web_is_down_the_proxy_answers_we_zijn_zo_terug(running_stack):
    browser = running_stack.browser()
    running_stack.web.stop()
    answer = browser.get("/dashboard")
    assert answer.status == 502
    assert answer.headers["Content-Type"].startswith("text/html")
    assert '<h1 id="title">We zijn zo terug</h1>' in answer.text
    assert answer.headers["Retry-After"] == "30"
    running_stack.web.start()  # compose restarts it (restart: unless-stopped); the site is back
    assert browser.get("/").status == 200
