"""Issue 32 §4: the Systeemstatus card on /admin. Green when all is well; a red Dutch line naming what stopped,
seen by stopping the worker, the scheduler and the backup. Issue 47 §5: the facts are gathered by the status
job (or a look that finds none of the last minute) and kept a minute, so /admin does not gather them."""

import datetime
import os
import re
import tomllib
from pathlib import Path

import pytest
import redis
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.notifications.models import Mail
from apps.operations.formatting import moment
from apps.operations.heartbeat import heartbeat_beat
from apps.operations.jobs import JOBS, JOBS_BY_NAME
from apps.operations.models import Heartbeat, JobRun
from apps.operations.scheduler import job_run_if_due
from apps.operations.status import (
    CHECKS,
    forget_migration_state,
    redis_reachable,
    status_refresh,
    system_status,
    unapplied_migrations,
)
from tests.concurrency import requires_postgresql
from tests.redis_states import TEST_REDIS_URL

from .processes import start, stop, wait_for

pytestmark = pytest.mark.django_db

PYPROJECT_VERSION = tomllib.loads((Path(settings.BASE_DIR) / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture
def backups(settings, tmp_path):
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.BACKUP_DIR.mkdir()
    return settings.BACKUP_DIR


def make_backup(folder, *, age: datetime.timedelta = datetime.timedelta(0), size: int = 3 * 1024 * 1024):
    now = timezone.now()
    path = folder / f"koud-backup-{now - age:%Y%m%d-%H%M%S}.tar"
    path.write_bytes(b"\0" * size)
    stamp = (now - age).timestamp()
    os.utime(path, (stamp, stamp))
    return path


def all_well(backups):
    for kind in Heartbeat.Kind:
        heartbeat_beat(kind=kind)
    now = timezone.now()
    JobRun.objects.bulk_create([JobRun(job=job.name, started_at=now, finished_at=now, ok=True) for job in JOBS])
    make_backup(backups)


def card(client, *, gathered: bool = True) -> str:
    """The card on /admin; `gathered`: after the status job's look at what the test just changed."""
    if gathered:
        status_refresh()
    html = client.get("/admin").content.decode()
    match = re.search(r'<section class="card status-card".*?</section>', html, re.S)
    assert match, "no Systeemstatus card on /admin"
    return match.group(0)


def row(card_html: str, check: str) -> str:
    match = re.search(rf'<div class="status-row[^"]*" data-check="{re.escape(check)}">.*?</div>', card_html, re.S)
    assert match, check
    return match.group(0)


def red_lines(card_html: str) -> list[str]:
    banner = re.search(r'<ul class="status-banner status-banner-red list-plain">(.*?)</ul>', card_html, re.S)
    return re.findall(r"<li>(.*?)</li>", banner.group(1)) if banner else []


def test_the_checks_are_a_declared_list_with_one_row_each(admin_client, backups):
    all_well(backups)
    html = card(admin_client)
    for check in CHECKS:
        assert f'data-check="{check.name}"' in html
    assert {check.name for check in CHECKS} >= {"worker", "scheduler", "mail_queue", "notice_queue", "failed_mails"}
    assert {f"job:{job.name}" for job in JOBS} <= {check.name for check in CHECKS}


def test_all_well_is_green_with_the_version_and_the_last_backup(admin_client, backups):
    all_well(backups)
    html = card(admin_client)
    assert 'data-status="groen"' in html and "Alles draait." in html
    assert f"<dd>{PYPROJECT_VERSION}</dd>" in row(html, "version")
    assert "3,0 MB" in row(html, "backup")
    assert "vrij" in row(html, "disk_media") and "vrij" in row(html, "disk_backup")
    assert "alle uitgevoerd" in row(html, "migrations")


def test_the_card_shows_the_newest_facts_on_a_cached_admin_page(admin_client, backups):
    all_well(backups)
    assert 'data-status="groen"' in card(admin_client)
    Heartbeat.objects.filter(kind="worker").update(seen_at=timezone.now() - datetime.timedelta(minutes=10))
    assert 'data-status="rood"' in card(admin_client)  # the rest of the page came from the cache


def test_the_card_shows_the_facts_of_the_last_minute_and_gathers_older_ones_again(admin_client, backups):
    all_well(backups)
    assert 'data-status="groen"' in card(admin_client, gathered=False)  # none kept yet: gathered by this look
    Heartbeat.objects.filter(kind="worker").update(seen_at=timezone.now() - datetime.timedelta(minutes=10))
    assert 'data-status="groen"' in card(admin_client, gathered=False)  # kept: this look gathers nothing
    with time_machine.travel(timezone.now() + datetime.timedelta(seconds=61)):
        assert 'data-status="rood"' in card(admin_client, gathered=False)


def test_the_status_job_gathers_what_the_card_shows_and_admin_reads_it_without_a_status_query(admin_client, backups):
    all_well(backups)
    JobRun.objects.filter(job="check_status").delete()  # due now
    assert job_run_if_due(JOBS_BY_NAME["check_status"]).ok
    Heartbeat.objects.filter(kind="worker").update(seen_at=timezone.now() - datetime.timedelta(minutes=10))
    with CaptureQueriesContext(connection) as queries:
        html = card(admin_client, gathered=False)
    assert 'data-status="groen"' in html  # what the job saw, a moment ago
    status_tables = ("operations_", "notifications_mail", "notifications_notice", "django_migrations")
    assert not [query["sql"] for query in queries if any(table in query["sql"] for table in status_tables)]


def test_the_migration_state_is_read_once_per_process_once_all_are_applied():
    forget_migration_state()
    with CaptureQueriesContext(connection) as first:
        assert unapplied_migrations() == []
    with CaptureQueriesContext(connection) as second:
        assert unapplied_migrations() == []
    assert any("django_migrations" in query["sql"] for query in first)
    assert not [query["sql"] for query in second]


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_stopping_the_worker_and_the_scheduler_turns_the_card_red(admin_client, backups, tmp_path):
    requires_postgresql()
    all_well(backups)
    Heartbeat.objects.all().delete()  # only the real processes below
    worker_log, scheduler_log = tmp_path / "worker.log", tmp_path / "scheduler.log"
    worker = start("worker", "--no-reload", "--no-startup-delay", log=worker_log)
    scheduler = start("scheduler", "--tick", "0.2", log=scheduler_log, BACKUP_DIR=str(backups))
    try:
        for kind, process, log in (("worker", worker, worker_log), ("scheduler", scheduler, scheduler_log)):
            wait_for(
                lambda kind=kind: Heartbeat.objects.filter(kind=kind).exists(), what=kind, process=process, log=log
            )
        html = card(admin_client)
        assert "draait, laatst gezien" in row(html, "worker") and "draait, laatst gezien" in row(html, "scheduler")
        assert not red_lines(html)

        assert stop(worker) == 0
        seen = Heartbeat.objects.get(kind="worker").seen_at
        html = card(admin_client)
        assert 'data-status="rood"' in html
        assert red_lines(html) == [f"De e-mailworker draait niet sinds {moment(seen, now=timezone.now())}"]

        assert stop(scheduler) == 0
        seen = Heartbeat.objects.get(kind="scheduler").seen_at
        assert f"De planner draait niet sinds {moment(seen, now=timezone.now())}" in red_lines(card(admin_client))
    finally:
        stop(worker)
        stop(scheduler)


def test_a_killed_worker_turns_red_when_its_heartbeat_is_stale(admin_client, backups):
    all_well(backups)
    long_ago = timezone.now() - datetime.timedelta(minutes=5)
    Heartbeat.objects.filter(kind="worker").update(seen_at=long_ago)  # kill -9: no stop recorded
    assert red_lines(card(admin_client)) == [
        f"De e-mailworker draait niet sinds {moment(long_ago, now=timezone.now())}"
    ]


def test_a_backup_that_stopped_three_days_ago_is_red(admin_client, backups):
    all_well(backups)
    for path in backups.iterdir():
        path.unlink()
    make_backup(backups, age=datetime.timedelta(days=3, hours=2))
    assert red_lines(card(admin_client)) == ["Er is sinds 3 dagen geen back-up gemaakt"]
    make_backup(backups, age=datetime.timedelta(hours=1))  # the newest counts
    assert not red_lines(card(admin_client))
    for path in backups.iterdir():
        path.unlink()
    assert red_lines(card(admin_client)) == ["Er is nog nooit een back-up gemaakt"]


def test_a_failing_backup_job_is_red_with_its_error(admin_client, backups):
    all_well(backups)
    two_days_ago = timezone.now() - datetime.timedelta(days=2)
    JobRun.objects.filter(job="backup").update(started_at=two_days_ago, finished_at=two_days_ago)
    JobRun.objects.create(
        job="backup", started_at=timezone.now(), finished_at=timezone.now(), ok=False, error="OSError: schijf vol"
    )
    lines = red_lines(card(admin_client))
    assert lines == [
        f"Dagelijkse back-up is sinds {moment(two_days_ago, now=timezone.now())} niet gelukt: OSError: schijf vol"
    ]
    assert "<dt>Dagelijkse back-up</dt>" in row(card(admin_client), "job:backup")


def test_a_mail_waiting_too_long_and_a_failed_mail_are_red(admin_client, backups, member):
    all_well(backups)
    two_hours_ago = timezone.now() - datetime.timedelta(hours=2)
    Mail.objects.create(kind="event_reminder", to_email=member.email, user=member, created_at=two_hours_ago)
    Mail.objects.create(
        kind="dip_nudge",
        to_email=member.email,
        user=member,
        status=Mail.Status.FAILED,
        last_error="501 MAIL FROM",
    )
    html = card(admin_client)
    assert "Er wacht al 2 uur een mail in de wachtrij" in red_lines(html)
    assert any(
        line.startswith("Het versturen van mail is mislukt om") and "501 MAIL FROM" in line for line in red_lines(html)
    )
    assert "1, de oudste wacht 2 uur" in row(html, "mail_queue")


def test_a_mail_left_being_sent_waits_in_the_queue(admin_client, backups, member):
    """A mail whose worker was killed mid-send is 'Wordt verstuurd' until recovery: it has not left yet."""
    all_well(backups)
    two_hours_ago = timezone.now() - datetime.timedelta(hours=2)
    Mail.objects.create(
        kind="event_reminder", to_email=member.email, user=member, status=Mail.Status.SENDING, created_at=two_hours_ago
    )
    Mail.objects.create(kind="dip_nudge", to_email=member.email, user=member)
    html = card(admin_client)
    assert "Er wacht al 2 uur een mail in de wachtrij" in red_lines(html)
    assert "2, de oudste wacht 2 uur" in row(html, "mail_queue")


def test_redis_reachable_or_not(settings, monkeypatch):
    assert redis_reachable() is None  # not configured: the cache is in the database
    url = TEST_REDIS_URL
    settings.CACHES = {"default": {"BACKEND": "config.cache.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}
    assert redis_reachable() is False
    settings.CACHES = {"default": {"BACKEND": "config.cache.RedisCache", "LOCATION": url}}
    if redis_reachable() is not True:
        assert os.environ.get("REDIS_REQUIRED") != "1", "Redis at TEST_REDIS_URL does not answer"
        return
    # Through the cache's pool: the next looks reuse its connection and open none of their own.
    connects = []  # sockets opened
    original = redis.connection.Connection._connect
    monkeypatch.setattr(redis.connection.Connection, "_connect", lambda self: connects.append(1) or original(self))
    assert redis_reachable() is True and redis_reachable() is True
    assert connects == []


def test_unapplied_migrations_are_red(monkeypatch, backups):
    all_well(backups)
    from apps.operations import status

    known = status.known_migrations()
    forget_migration_state()  # an earlier look in this process found them all applied
    monkeypatch.setattr(status, "known_migrations", lambda: (*known, (("operations", "9999_later"), ())))
    result = next(result for result in system_status().results if result.name == "migrations")
    assert result.red == "1 migratie is niet uitgevoerd (manage.py migrate)"
    assert result.value == "operations.9999_later"


@pytest.mark.parametrize("size", [1, 300])
def test_the_admin_page_keeps_a_fixed_query_budget(admin_client, backups, size, member, django_assert_max_num_queries):
    all_well(backups)
    Mail.objects.bulk_create(
        [
            Mail(kind="dip_nudge", to_email=member.email, user=member, status=status)
            for status in ["queued", "failed"] * size
        ]
    )
    JobRun.objects.bulk_create([JobRun(job="send_scheduled_mail", ok=True) for _ in range(size)])
    with django_assert_max_num_queries(21):
        assert admin_client.get("/admin").status_code == 200
    with django_assert_max_num_queries(3):  # from the cache: the session, the user and the factor; the card's
        assert admin_client.get("/admin").status_code == 200  # facts too (gathered by the first look)


def test_a_red_card_is_judged_once_per_gathering_not_per_look(admin_client, django_assert_max_num_queries):
    """No worker ever seen: red, which asks the first start's record (apps/operations/first_start.py) when the
    facts are judged; the looks of the next minute read the judged status and its rendered card."""
    assert 'data-status="rood"' in card(admin_client, gathered=False)
    with django_assert_max_num_queries(3):  # the session, the user and the factor
        assert 'data-status="rood"' in card(admin_client, gathered=False)


def test_check_status_prints_every_check(backups, capsys):
    all_well(backups)
    call_command("check_status")
    out = capsys.readouterr().out
    assert out.count("\n") == len(CHECKS)
    assert "ok   E-mailworker: draait" in out


def test_the_version_has_upgrade_notes_in_the_changelog():
    changelog = (Path(settings.BASE_DIR) / "CHANGELOG.md").read_text()
    section = changelog.split(f"\n## {PYPROJECT_VERSION}", 1)
    assert len(section) == 2, f"CHANGELOG.md has no section for {PYPROJECT_VERSION} (pyproject.toml)"
    assert "Upgrade" in section[1].split("\n## ", 1)[0], "each version says how to upgrade to it"


def test_old_heartbeats_go_but_the_newest_of_each_kind_stays():
    from apps.operations.heartbeat import heartbeats_prune

    long_ago = timezone.now() - datetime.timedelta(days=30)
    for pid in (1, 2):
        Heartbeat.objects.create(kind="worker", host="oud", pid=pid, seen_at=long_ago - datetime.timedelta(hours=pid))
    Heartbeat.objects.create(kind="scheduler", host="oud", pid=3, seen_at=long_ago)
    assert heartbeats_prune() == 1
    assert sorted(Heartbeat.objects.values_list("kind", "pid")) == [("scheduler", 3), ("worker", 1)]
