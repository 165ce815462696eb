"""Issue 32 §4 in real Chromium: the Systeemstatus card on /admin, green and red, at 320, 390 and 1280 px:
readable, nothing scrolls sideways, the red lines first."""

import datetime
import os

import pytest
from django.utils import timezone

from apps.operations.formatting import moment
from apps.operations.heartbeat import heartbeat_beat
from apps.operations.jobs import JOBS
from apps.operations.models import Heartbeat, JobRun
from apps.operations.status import status_refresh
from tests.e2e.conftest import screenshot
from tests.e2e.test_admin_insights import new_page_for
from tests.factories import AdminFactory

WIDTHS = [{"width": 320, "height": 800}, {"width": 390, "height": 844}, {"width": 1280, "height": 900}]


@pytest.fixture
def machinery(settings, tmp_path):
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.BACKUP_DIR.mkdir()
    for kind in Heartbeat.Kind:
        heartbeat_beat(kind=kind)
    now = timezone.now()
    JobRun.objects.bulk_create([JobRun(job=job.name, started_at=now, finished_at=now, ok=True) for job in JOBS])
    backup = settings.BACKUP_DIR / "koud-backup-20261127-030000.tar"
    backup.write_bytes(b"\0" * 5_000_000)
    return backup


@pytest.mark.parametrize("viewport", WIDTHS, ids=lambda v: str(v["width"]))
def test_the_card_is_green_then_names_what_stopped(page, machinery, viewport):
    admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
    admin_page = new_page_for(page, admin, viewport)
    admin_page.goto(page.base_url + "/admin")
    card = admin_page.locator("#systeemstatus")
    card.scroll_into_view_if_needed()
    assert card.get_by_role("heading", name="Systeemstatus").is_visible()
    assert card.get_by_text("Alles draait.").is_visible()
    screenshot(card, f"system-status-green-{viewport['width']}")

    # The worker stopped twenty minutes ago, the backup three days ago.
    stopped = timezone.now() - datetime.timedelta(minutes=20)
    Heartbeat.objects.filter(kind="worker").update(seen_at=stopped, stopped_at=stopped)
    three_days = (timezone.now() - datetime.timedelta(days=3, hours=1)).timestamp()
    os.utime(machinery, (three_days, three_days))
    status_refresh()  # the scheduler's status job gathers the facts the card shows (kept a minute)
    admin_page.reload()
    card = admin_page.locator("#systeemstatus")
    card.scroll_into_view_if_needed()
    # Twenty minutes ago may be yesterday: the card then names the day too.
    since = moment(stopped, now=timezone.now())
    assert card.get_by_text(f"De e-mailworker draait niet sinds {since}").first.is_visible()
    assert card.get_by_text("Er is sinds 3 dagen geen back-up gemaakt").first.is_visible()
    screenshot(card, f"system-status-red-{viewport['width']}")
    widths = admin_page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways at {viewport['width']} px: {widths}"
