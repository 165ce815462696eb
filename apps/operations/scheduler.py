"""The scheduler: runs every job of apps/operations/jobs.py when it is due, one at a time across machines.

A plain loop of our own rather than a library: what a job being due means here comes from the shared
record of runs in the database (so a restart neither repeats nor skips a slot, and two schedulers on two
machines agree), and each run is guarded by a database lock. APScheduler 3 keeps its schedule in one
process (its job stores are not meant to be shared by two schedulers) and APScheduler 4, which shares
one, is still a pre-release; `schedule` is an in-process loop as well. Both would leave us the lock, the
record and the catching up, which are most of this module.

The lock: on PostgreSQL `pg_try_advisory_lock` on a connection of its own (released by PostgreSQL when the
process dies, and untouched by whatever the job does with Django's connection); on SQLite (`make run`,
one machine) an exclusive `flock` on a file in the temp folder, named after the database.
"""

import contextlib
import datetime
import fcntl
import hashlib
import io
import logging
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import close_old_connections, connections
from django.utils import timezone

from apps.core.sql_registry import register

from .heartbeat import heartbeats_prune, this_host
from .jobs import JOBS, Job
from .models import JobRun

logger = logging.getLogger(__name__)

TICK_SECONDS = 30.0
KEEP_RUNS = datetime.timedelta(days=30)
PRUNE_EVERY = 60 * 60.0  # seconds between two clean-ups of old heartbeats


_JOB_LOCK = register(
    "scheduler.job_lock",
    postgresql="SELECT pg_try_advisory_lock(%s)",
    without="SQLite has no session locks: a file lock on the machine (one machine runs an SQLite app)",
    example=[-1],
    alone=True,
)


def _lock_key(name: str) -> int:
    """A stable signed 64-bit key per job for pg_try_advisory_lock."""
    digest = hashlib.sha256(f"koud-scheduled-job:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextlib.contextmanager
def job_lock(name: str) -> Iterator[bool]:
    """Yields True while this process holds the job's lock, False when another one holds it."""
    if connections["default"].vendor == "postgresql":
        lock_connection = connections.create_connection("default")
        try:
            with lock_connection.cursor() as cursor:
                cursor.execute(_JOB_LOCK.sql(lock_connection.vendor), [_lock_key(name)])
                held = bool(cursor.fetchone()[0])
            yield held
        finally:
            lock_connection.close()  # ends the session, and with it the lock
        return
    database = str(settings.DATABASES["default"]["NAME"])
    path = Path(tempfile.gettempdir()) / f"koud-job-{hashlib.sha256(database.encode()).hexdigest()[:12]}-{name}.lock"
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _drop_broken_connection() -> None:
    """A job may leave Django's connection broken (the database restarted under it): the record of its
    end gets a new one."""
    default = connections["default"]
    if default.connection is not None and not default.in_atomic_block and not default.is_usable():
        default.close()


def job_is_due(job: Job, *, now: datetime.datetime) -> bool:
    """Not yet succeeded in the slot `now` falls in, and no attempt in the last `retry_after`."""
    slot = job.slot_start(now)
    runs = JobRun.objects.filter(job=job.name, started_at__gte=min(slot, now - job.retry_after))
    if runs.filter(ok=True, started_at__gte=slot).exists():
        return False
    return not runs.filter(started_at__gt=now - job.retry_after).exclude(ok=True).exists()


def _run_command(job: Job) -> None:
    out = io.StringIO()
    call_command(job.command, *job.args, stdout=out, stderr=out)
    text = out.getvalue().strip()
    if text:
        logger.info("%s: %s", job.name, text[-2000:])


def job_run_if_due(job: Job, *, now: datetime.datetime | None = None) -> JobRun | None:
    """Run `job` when it is due and no other scheduler runs it now; the run is recorded either way it ends."""
    with job_lock(job.name) as held:
        if not held:
            return None
        now = now or timezone.now()
        if not job_is_due(job, now=now):
            return None
        run = JobRun.objects.create(job=job.name, host=this_host(), started_at=now)
        logger.info("scheduled job %s started", job.name)
        try:
            _run_command(job)
        except Exception as error:  # noqa: BLE001 - a failed job is recorded, the scheduler goes on
            run.ok = False
            run.error = f"{type(error).__name__}: {error}"[:2000]
            logger.error("scheduled job %s failed: %s", job.name, run.error, exc_info=True)
        else:
            run.ok = True
        _drop_broken_connection()
        run.finished_at = timezone.now()
        run.save(update_fields=["ok", "error", "finished_at"])
        job_runs_prune(job=job, now=run.finished_at)
        return run


def job_runs_prune(*, job: Job, now: datetime.datetime) -> int:
    """Runs older than KEEP_RUNS go, except the job's last success (the Systeemstatus shows it)."""
    last_ok = JobRun.objects.filter(job=job.name, ok=True).order_by("-started_at").values_list("pk", flat=True)[:1]
    deleted, _ = (
        JobRun.objects.filter(job=job.name, started_at__lt=now - KEEP_RUNS).exclude(pk__in=list(last_ok)).delete()
    )
    return deleted


def scheduler_run(*, stop: threading.Event, tick: float = TICK_SECONDS, once: bool = False) -> None:
    """The scheduler's loop: every tick each due job, in the declared order, until `stop` is set. A job
    that is running finishes before the loop looks at `stop`."""
    prune_at = 0.0
    while not stop.is_set():
        close_old_connections()
        for job in JOBS:
            if stop.is_set():
                break
            try:
                job_run_if_due(job)
            except Exception:  # noqa: BLE001 - the database away for a moment: try again next tick
                logger.exception("scheduler could not run %s", job.name)
                close_old_connections()
        if time.monotonic() >= prune_at:
            prune_at = time.monotonic() + PRUNE_EVERY
            try:
                heartbeats_prune()
            except Exception:  # noqa: BLE001
                logger.warning("old heartbeats not pruned", exc_info=True)
        if once:
            return
        stop.wait(tick)
