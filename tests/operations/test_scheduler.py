"""Issue 32 §2: one long-running `manage.py scheduler` runs every job; two schedulers (two machines) never run
the same job at once (a PostgreSQL advisory lock per job); SIGTERM stops it gracefully; it writes a heartbeat."""

import pytest
from django.db.models import Count

from apps.operations.jobs import JOBS, JOBS_BY_NAME
from apps.operations.models import Heartbeat, JobRun
from apps.operations.scheduler import job_lock, job_run_if_due
from tests.concurrency import requires_postgresql

from .processes import start, stop, wait_for


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_job_another_scheduler_runs_is_left_alone():
    requires_postgresql()
    job = JOBS_BY_NAME["delete_old_exports"]
    with job_lock(job.name) as held:  # another scheduler, in the middle of this job
        assert held
        assert job_run_if_due(job) is None
        with job_lock(job.name) as second:
            assert not second
        assert job_run_if_due(JOBS_BY_NAME["send_brrr_notices"]) is not None  # other jobs are free
    assert not JobRun.objects.filter(job=job.name).exists()
    assert job_run_if_due(job).ok is True  # released: it runs


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_schedulers_run_every_job_once_and_stop_gracefully(tmp_path):
    requires_postgresql()
    logs = [tmp_path / "scheduler-a.log", tmp_path / "scheduler-b.log"]
    schedulers = [start("scheduler", "--tick", "0.1", log=log, BACKUP_DIR=str(tmp_path / "backups")) for log in logs]
    try:
        wait_for(
            lambda: (
                set(JobRun.objects.filter(finished_at__isnull=False).values_list("job", flat=True))
                >= {job.name for job in JOBS}
            ),
            what="every job ran",
            process=schedulers[0],
            log=logs[0],
        )
        wait_for(
            lambda: Heartbeat.objects.filter(kind="scheduler", stopped_at__isnull=True).count() == 2,
            what="both schedulers beat",
        )
        # A third scheduler's round now: nothing is due again, so nothing runs again.
        rounds = JobRun.objects.count()
        once_log = tmp_path / "scheduler-once.log"
        once = start("scheduler", "--once", log=once_log, BACKUP_DIR=str(tmp_path / "backups"))
        assert once.wait(120) == 0, once_log.read_text()
        assert all(scheduler.poll() is None for scheduler in schedulers), [log.read_text() for log in logs]
    finally:
        codes = [stop(scheduler) for scheduler in schedulers]
    assert codes == [0, 0], [log.read_text() for log in logs]
    assert JobRun.objects.count() == rounds
    per_job = dict(JobRun.objects.values_list("job").annotate(n=Count("pk")))
    assert per_job == {job.name: 1 for job in JOBS}, per_job
    # Both took part, and never two runs of one job overlapped (one run each, so no overlap at all).
    assert len(set(JobRun.objects.values_list("host", flat=True))) == 1  # one machine here; two pids beat
    assert Heartbeat.objects.filter(kind="scheduler", stopped_at__isnull=False).count() == 3  # and the --once one
    for log in logs:
        assert "De planner is gestopt." in log.read_text()
