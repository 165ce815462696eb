"""Issue 46 §5: no false alarm on the first start. `make run` and a first deploy start the worker and the scheduler
seconds after `migrate`, and the first backup waits for BACKUP_HOUR: the Systeemstatus is not red (and mails no
one) for that, only once the grace from the first start has passed."""

import datetime
import zoneinfo

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django.core.management.sql import emit_post_migrate_signal
from django.db.migrations.recorder import MigrationRecorder

from apps.operations.first_start import PROCESS_GRACE, first_started_at
from apps.operations.heartbeat import heartbeat_beat, heartbeat_stop
from apps.operations.models import FirstStart, Heartbeat, StatusAlert
from apps.operations.status import system_status

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
# A fresh database, migrated on a Tuesday at 10:00 club time.
MIGRATED = datetime.datetime(2026, 11, 24, 10, 0, tzinfo=AMSTERDAM)


@pytest.fixture
def fresh_install(settings, tmp_path):
    """What `migrate` leaves on a fresh database at MIGRATED: its migrations applied then, the first start
    recorded by the post-migrate hook, no heartbeat, no backup."""
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.BACKUP_DIR.mkdir()
    settings.BACKUP_HOUR = 3
    FirstStart.objects.all().delete()
    Heartbeat.objects.all().delete()
    MigrationRecorder.Migration.objects.update(applied=MIGRATED)
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert first_started_at() == MIGRATED


# Each look gathers the facts of its own moment (fresh): the minute they are kept for /admin would hide the moment.
def red(status) -> dict[str, str]:
    return {result.name: result.red for result in status.red}


def look(at: datetime.datetime, *, scheduler_beats: bool = True) -> None:
    """The scheduler's check_status job at `at` (the scheduler beats while it runs)."""
    with time_machine.travel(at, tick=False):
        if scheduler_beats:
            heartbeat_beat(kind=Heartbeat.Kind.SCHEDULER)
        call_command("check_status", "--quiet")


def test_the_first_start_is_recorded_once_from_the_first_migration(fresh_install):
    MigrationRecorder.Migration.objects.update(applied=MIGRATED + datetime.timedelta(days=9))
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")  # a later migrate
    assert first_started_at() == MIGRATED and FirstStart.objects.count() == 1


def test_seconds_after_the_first_start_nothing_is_red_and_no_one_is_mailed(fresh_install, admin_user):
    at = MIGRATED + datetime.timedelta(seconds=20)
    look(at, scheduler_beats=False)  # the scheduler's first look, before any heartbeat
    assert mail.outbox == [] and not StatusAlert.objects.exists()
    with time_machine.travel(at, tick=False):
        status = system_status(fresh=True)
    assert red(status) == {}
    values = {result.name: result.value for result in status.results}
    assert values["worker"] == "nog niet gezien (net gestart; rood als het er om 10:05 nog niet is)"
    assert values["backup"] == "nog geen (net gestart; rood als het er om 25 november 04:00 nog niet is)"


def test_a_worker_still_missing_after_the_grace_is_red_with_one_mail(fresh_install, admin_user):
    look(MIGRATED + datetime.timedelta(minutes=1))
    assert mail.outbox == []

    after = MIGRATED + PROCESS_GRACE
    with time_machine.travel(after - datetime.timedelta(seconds=1), tick=False):
        heartbeat_beat(kind=Heartbeat.Kind.SCHEDULER)
        assert red(system_status(fresh=True)) == {}
    with time_machine.travel(after, tick=False):
        heartbeat_beat(kind=Heartbeat.Kind.SCHEDULER)
        assert red(system_status(fresh=True)) == {"worker": "De e-mailworker draait niet: nog nooit gezien"}
    look(after)
    look(after + datetime.timedelta(minutes=5))
    assert [message.subject for message in mail.outbox] == ["Systeemstatus: er is iets gestopt"]
    assert "De e-mailworker draait niet: nog nooit gezien" in mail.outbox[0].body
    assert "back-up" not in mail.outbox[0].body  # the first BACKUP_HOUR is still to come


def test_a_process_that_ran_and_stopped_is_red_at_once(fresh_install):
    with time_machine.travel(MIGRATED + datetime.timedelta(seconds=10), tick=False):
        heartbeat_beat(kind=Heartbeat.Kind.WORKER)
        heartbeat_stop(kind=Heartbeat.Kind.WORKER)
        assert red(system_status(fresh=True))["worker"] == "De e-mailworker draait niet sinds 10:00"


@pytest.mark.parametrize(
    ("migrated", "red_from"),
    [
        # 10:00: the first backup is tomorrow at 03:00; red once that hour has passed.
        (MIGRATED, datetime.datetime(2026, 11, 25, 4, 0, tzinfo=AMSTERDAM)),
        # 02:30: the first backup is at 03:00 the same night.
        (MIGRATED.replace(hour=2, minute=30), datetime.datetime(2026, 11, 24, 4, 0, tzinfo=AMSTERDAM)),
    ],
    ids=["by-day", "just-before-the-backup-hour"],
)
def test_no_backup_is_red_only_after_the_first_backup_hour_has_passed(fresh_install, migrated, red_from):
    MigrationRecorder.Migration.objects.update(applied=migrated)
    FirstStart.objects.all().delete()
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    for at in (
        migrated + PROCESS_GRACE,
        red_from - datetime.timedelta(minutes=30),
        red_from - datetime.timedelta(seconds=1),
    ):
        with time_machine.travel(at, tick=False):
            for kind in Heartbeat.Kind:
                heartbeat_beat(kind=kind)
            assert "backup" not in red(system_status(fresh=True)), at
    with time_machine.travel(red_from, tick=False):
        for kind in Heartbeat.Kind:
            heartbeat_beat(kind=kind)
        assert red(system_status(fresh=True)) == {"backup": "Er is nog nooit een back-up gemaakt"}


def test_without_a_record_of_the_first_start_the_checks_are_red_as_found(fresh_install):
    FirstStart.objects.all().delete()
    with time_machine.travel(MIGRATED + datetime.timedelta(seconds=20), tick=False):
        assert set(red(system_status(fresh=True))) == {"worker", "scheduler", "backup"}
