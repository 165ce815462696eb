"""Issue 32 §2: the scheduled jobs are a declared list (apps/operations/jobs.py), walked here: every job's
command exists, and every command of the project is either a job or said to be run by hand (or to run
for ever). When a job is due: once per slot, a missed slot caught up, a failed run tried again later."""

import datetime
import zoneinfo
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import get_commands
from django.test import override_settings

from apps.operations.jobs import DAY, HOUR, JOBS, JOBS_BY_NAME, MINUTE
from apps.operations.models import JobRun
from apps.operations.scheduler import job_is_due, job_run_if_due

AMS = zoneinfo.ZoneInfo("Europe/Amsterdam")

# Commands of the project that are not scheduled, and why.
NOT_SCHEDULED = {
    "seed_catalogue": "by hand: (re)creates the standard challenges",
    "seed_demo": "make run",
    "seed_load_data": "make bench",
    "grant_admin": "by hand",
    "revoke_admin": "by hand",
    "create_invitation": "by hand",
    "cleanup_invitations": "by hand: the admin table shows expired invitations until someone clears them",
    "export_subscribers": "by hand",
    "vapid_keys": "by hand, once",
    "worker": "long-running",
    "scheduler": "long-running",
    "alive": "a container's health check",
    "restore": "by hand",
    "reset_second_factor": "by hand",
    "import_supabase": "by hand, once",
    "import_supabase_forget": "by hand, once the club is happy with the move",
    "grant_organiser": "by hand",
    "revoke_organiser": "by hand",
}


def project_commands() -> set[str]:
    root = Path(settings.BASE_DIR) / "apps"
    return {path.stem for path in root.glob("*/management/commands/*.py") if not path.stem.startswith("_")}


def test_every_job_runs_a_command_that_exists():
    commands = get_commands()
    missing = [job.command for job in JOBS if job.command not in commands]
    assert not missing, f"jobs whose command does not exist: {missing}"


def test_every_command_of_the_project_is_a_job_or_said_not_to_be():
    scheduled = {job.command for job in JOBS}
    unclassified = project_commands() - scheduled - NOT_SCHEDULED.keys()
    assert not unclassified, f"commands neither in JOBS nor in NOT_SCHEDULED: {sorted(unclassified)}"
    assert not scheduled & NOT_SCHEDULED.keys()


def test_every_job_has_a_dutch_label_of_its_own_for_the_systeemstatus():
    """Issue 47 §5: the card says "Geplande mails versturen", not "Taak send_scheduled_mail"."""
    labels = [job.label for job in JOBS]
    assert all(labels), f"jobs without a label: {[job.name for job in JOBS if not job.label]}"
    assert len(set(labels)) == len(labels), "two jobs with one label"
    for job in JOBS:
        assert job.name not in job.label and "_" not in job.label and job.label[0].isupper(), job.label
    assert JOBS_BY_NAME["send_scheduled_mail"].label == "Geplande mails versturen"


def test_the_jobs_the_issue_names_run_at_their_intervals():
    assert JOBS_BY_NAME["send_scheduled_mail"].every == 15 * MINUTE
    assert JOBS_BY_NAME["delete_old_exports"].every == HOUR
    for name in ("delete_old_guests", "send_brrr_notices", "prune_db_task_results", "backup"):
        assert JOBS_BY_NAME[name].every == DAY
    assert "prune_db_task_results" in get_commands()  # django-tasks-db's own command


def test_the_readme_has_no_cron_lines_left():
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    assert "```cron" not in readme and "*/15 * * * *" not in readme


def _run(job, started: datetime.datetime, ok: bool | None) -> JobRun:
    return JobRun.objects.create(job=job.name, started_at=started, finished_at=started, ok=ok)


@pytest.mark.django_db
def test_an_interval_job_is_due_once_per_slot():
    job = JOBS_BY_NAME["send_scheduled_mail"]
    now = datetime.datetime(2026, 12, 1, 10, 7, tzinfo=AMS)
    assert job_is_due(job, now=now)
    _run(job, now, ok=True)
    assert not job_is_due(job, now=now + 5 * MINUTE)  # 10:12, the same slot (10:00-10:15)
    assert job_is_due(job, now=now + 8 * MINUTE)  # 10:15, the next one


@pytest.mark.django_db
@override_settings(BACKUP_HOUR=3)
def test_a_daily_job_runs_from_its_hour_and_catches_up_a_missed_day():
    job = JOBS_BY_NAME["backup"]
    _run(job, datetime.datetime(2026, 12, 1, 3, 0, tzinfo=AMS), ok=True)
    assert not job_is_due(job, now=datetime.datetime(2026, 12, 2, 2, 59, tzinfo=AMS))
    assert job_is_due(job, now=datetime.datetime(2026, 12, 2, 3, 0, tzinfo=AMS))
    # The scheduler was down at 03:00: the backup runs when it is back, not a day later.
    assert job_is_due(job, now=datetime.datetime(2026, 12, 2, 11, 40, tzinfo=AMS))
    with override_settings(BACKUP_HOUR=12):  # the hour is a setting
        _run(job, datetime.datetime(2026, 12, 1, 12, 30, tzinfo=AMS), ok=True)
        assert not job_is_due(job, now=datetime.datetime(2026, 12, 2, 11, 40, tzinfo=AMS))
        assert job_is_due(job, now=datetime.datetime(2026, 12, 2, 12, 0, tzinfo=AMS))


@pytest.mark.django_db
def test_a_failed_or_killed_run_is_tried_again_after_a_while():
    job = JOBS_BY_NAME["delete_old_guests"]  # daily at 04:30, tried again an hour after a failure
    failed_at = datetime.datetime(2026, 12, 1, 4, 30, tzinfo=AMS)
    _run(job, failed_at, ok=False)
    assert not job_is_due(job, now=failed_at + 30 * MINUTE)
    assert job_is_due(job, now=failed_at + HOUR)
    _run(job, failed_at + HOUR, ok=None)  # killed mid-run: no end recorded
    assert not job_is_due(job, now=failed_at + 90 * MINUTE)
    assert job_is_due(job, now=failed_at + 2 * HOUR)


@pytest.mark.django_db
def test_each_run_is_recorded_with_its_outcome(monkeypatch):
    job = JOBS_BY_NAME["delete_old_exports"]
    run = job_run_if_due(job)
    assert run is not None and run.ok is True and run.finished_at >= run.started_at and run.error == ""
    assert job_run_if_due(job) is None  # done for this slot

    def broken(*args, **kwargs):
        raise RuntimeError("schijf vol")

    monkeypatch.setattr("apps.operations.scheduler.call_command", broken)
    failing = job_run_if_due(JOBS_BY_NAME["send_brrr_notices"])
    assert failing is not None and failing.ok is False and failing.error == "RuntimeError: schijf vol"


@pytest.mark.django_db
def test_old_runs_are_pruned_but_the_last_success_stays(monkeypatch):
    job = JOBS_BY_NAME["send_brrr_notices"]
    long_ago = datetime.datetime(2026, 1, 1, 19, 0, tzinfo=AMS)
    kept = _run(job, long_ago, ok=True)
    _run(job, long_ago + DAY, ok=False)
    _run(job, long_ago + 2 * DAY, ok=False)

    def broken(*args, **kwargs):
        raise RuntimeError("nog steeds stuk")

    monkeypatch.setattr("apps.operations.scheduler.call_command", broken)
    job_run_if_due(job)  # fails today: recorded, and the old failures go
    assert list(JobRun.objects.filter(job=job.name, started_at__lt=long_ago + 10 * DAY)) == [kept]
    assert JobRun.objects.filter(job=job.name).count() == 2
