"""The Systeemstatus: what the machinery is doing, and a red Dutch line for whatever stopped.

`CHECKS` is the declared list: each check reads the `Facts` (gathered in a fixed number of queries
whatever the data size) and gives a `Result`: a label, the value shown, and a red line when something is
wrong. The card on /admin, the /status endpoint for uptime monitors and the scheduler's `check_status`
(which mails the admins when a check turns red) all show the same list.

The facts are gathered by the scheduler's status job and by a look that finds no status younger than a minute;
the status judged from them is kept in the page cache for that minute: /admin is opened often and must not pay
the gathering (nor the judging, nor rendering the card) each time.
"""

import datetime
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from apps.notifications.models import Mail, Notice

from .first_start import first_start_grace
from .formatting import age, moment, size
from .heartbeat import is_fresh
from .jobs import JOBS, Job
from .migrations_state import known_migrations
from .models import Heartbeat, JobRun
from .selectors import app_version

# Thresholds: past these a check is red.
QUEUE_LATE = datetime.timedelta(minutes=30)
FAILED_MAIL_RECENT = datetime.timedelta(hours=1)
BACKUP_LATE = datetime.timedelta(hours=30)
DISK_FREE_MIN = 1024**3  # bytes
BACKUP_PATTERN = "koud-backup-*"
# A status serves the looks of the next minute; an older one is gathered again.
STATUS_KEPT = datetime.timedelta(minutes=1)
STATUS_CACHE = "pages"


@dataclass(frozen=True)
class Backup:
    name: str
    made_at: datetime.datetime
    size: int


@dataclass
class Facts:
    now: datetime.datetime
    heartbeats: dict[str, list[Heartbeat]]
    mails: dict
    last_failed_mail: Mail | None
    notices: dict
    last_runs: dict[str, JobRun]
    last_success: dict[str, datetime.datetime]
    backup: Backup | None
    disk_free: dict[str, int | None]
    unapplied: list[str]
    redis: bool | None  # None: not configured


@dataclass(frozen=True)
class Result:
    name: str
    label: str
    value: str
    red: str = ""


@dataclass(frozen=True)
class Check:
    name: str
    label: str
    judge: Callable[[Facts], Result]


@dataclass
class Status:
    now: datetime.datetime
    results: list[Result] = field(default_factory=list)
    gathering: str = ""  # which gathering this is: the card is rendered once per gathering (operations/views.py)

    @property
    def red(self) -> list[Result]:
        return [result for result in self.results if result.red]

    @property
    def ok(self) -> bool:
        return not self.red


# --- gathering -------------------------------------------------------------------------------------------


def newest_backup(folder: Path) -> Backup | None:
    try:
        files = [path for path in folder.glob(BACKUP_PATTERN) if path.is_file()]
    except OSError:
        return None
    if not files:
        return None
    newest = max(files, key=lambda path: path.stat().st_mtime)
    stat = newest.stat()
    made_at = datetime.datetime.fromtimestamp(stat.st_mtime, tz=datetime.UTC)
    return Backup(name=newest.name, made_at=made_at, size=stat.st_size)


def free_bytes(folder: Path) -> int | None:
    """Free space on the disk that holds `folder` (or its nearest existing parent)."""
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def redis_reachable() -> bool | None:
    """A PING through the pool of the cache that uses Redis (config/cache.py), so no connection of its own."""
    for alias, config in settings.CACHES.items():
        if config.get("BACKEND") == "config.cache.RedisCache":
            return caches[alias].ping()  # type: ignore[attr-defined]  # config.cache.RedisCache's
    return None


class _Migrations:
    """Once every migration is applied, this process does not read `django_migrations` again: none is
    undone under a running process. While one is missing it is read at each gathering, so `migrate` turns
    the check green."""

    all_applied = False


def forget_migration_state() -> None:
    _Migrations.all_applied = False


def unapplied_migrations() -> list[str]:
    if _Migrations.all_applied:
        return []
    applied = set(MigrationRecorder(connection).applied_migrations())
    missing = []
    for key, replaces in known_migrations():
        if key in applied or (replaces and all(old in applied for old in replaces)):
            continue
        missing.append(f"{key[0]}.{key[1]}")
    _Migrations.all_applied = not missing
    return missing


def gather(*, now: datetime.datetime | None = None) -> Facts:
    now = now or timezone.now()
    heartbeats: dict[str, list[Heartbeat]] = {kind: [] for kind in Heartbeat.Kind}
    for beat in Heartbeat.objects.order_by("-seen_at"):
        heartbeats.setdefault(beat.kind, []).append(beat)
    latest = JobRun.objects.values("job").annotate(last=Max("pk")).values("last")
    latest_ok = JobRun.objects.filter(ok=True).values("job").annotate(last=Max("pk")).values("last")
    runs = list(JobRun.objects.filter(Q(pk__in=latest) | Q(pk__in=latest_ok)).order_by("pk"))
    week_ago = now - datetime.timedelta(days=7)
    # A mail being sent right now has not left yet: it counts as waiting (and one a killed worker left does).
    waiting = Q(status__in=[Mail.Status.QUEUED, Mail.Status.SENDING])
    mails = Mail.objects.filter(status__in=[Mail.Status.QUEUED, Mail.Status.SENDING, Mail.Status.FAILED]).aggregate(
        count=Count("pk", filter=waiting),
        oldest=Min("created_at", filter=waiting),
        failed_week=Count("pk", filter=Q(status=Mail.Status.FAILED, updated_at__gte=week_ago)),
        last_failed=Max("updated_at", filter=Q(status=Mail.Status.FAILED)),
    )
    return Facts(
        now=now,
        heartbeats=heartbeats,
        mails=mails,
        last_failed_mail=(
            Mail.objects.filter(status=Mail.Status.FAILED, updated_at=mails["last_failed"]).first()
            if mails["last_failed"] and now - mails["last_failed"] <= FAILED_MAIL_RECENT
            else None
        ),
        notices=Notice.objects.filter(
            status__in=[Notice.Status.QUEUED, Notice.Status.RETRY], send_after__lte=now
        ).aggregate(count=Count("pk"), oldest=Min("send_after")),
        last_runs={run.job: run for run in runs},  # the newest of the two per job comes last
        last_success={run.job: run.finished_at or run.started_at for run in runs if run.ok},
        backup=newest_backup(Path(settings.BACKUP_DIR)),
        disk_free={"media": free_bytes(Path(settings.MEDIA_ROOT)), "backup": free_bytes(Path(settings.BACKUP_DIR))},
        unapplied=unapplied_migrations(),
        redis=redis_reachable(),
    )


# --- the checks --------------------------------------------------------------------------------------------


def _process(kind: str, name: str, label: str) -> Callable[[Facts], Result]:
    def judge(facts: Facts) -> Result:
        beats = facts.heartbeats.get(kind, [])
        fresh = [beat for beat in beats if is_fresh(beat, facts.now)]
        if fresh:
            value = f"draait, laatst gezien {moment(fresh[0].seen_at, now=facts.now)}"
            return Result(kind, label, value + (f" ({len(fresh)} processen)" if len(fresh) > 1 else ""))
        if not beats:
            return Result(kind, label, "nooit gezien", red=f"{name} draait niet: nog nooit gezien")
        since = moment(beats[0].seen_at, now=facts.now)
        return Result(kind, label, f"laatst gezien {since}", red=f"{name} draait niet sinds {since}")

    return judge


def _queue(name: str, label: str, facts_key: str, what: str) -> Callable[[Facts], Result]:
    def judge(facts: Facts) -> Result:
        found = getattr(facts, facts_key)
        count, oldest = found["count"], found["oldest"]
        if not count:
            return Result(name, label, "leeg")
        waited = facts.now - oldest
        value = f"{count}, de oudste wacht {age(waited)}"
        red = f"Er wacht al {age(waited)} een {what} in de wachtrij" if waited > QUEUE_LATE else ""
        return Result(name, label, value, red=red)

    return judge


def failed_mails(facts: Facts) -> Result:
    value = f"{facts.mails['failed_week']} in de laatste 7 dagen"
    last = facts.last_failed_mail
    if last is not None and facts.now - last.updated_at <= FAILED_MAIL_RECENT:
        error = f": {last.last_error[:120]}" if last.last_error else ""
        red = f"Het versturen van mail is mislukt om {moment(last.updated_at, now=facts.now)}{error}"
        return Result("failed_mails", "Mislukte mails", value, red=red)
    return Result("failed_mails", "Mislukte mails", value)


def _job(job: Job) -> Callable[[Facts], Result]:
    def judge(facts: Facts) -> Result:
        name, label = f"job:{job.name}", job.label
        last_ok, last_run = facts.last_success.get(job.name), facts.last_runs.get(job.name)
        failed = last_run is not None and last_run.ok is False
        error = f": {last_run.error.splitlines()[-1][:160]}" if failed and last_run and last_run.error else ""
        if last_ok is None:
            if failed:
                return Result(name, label, "nog nooit gelukt", red=f"{job.label} is nog nooit gelukt{error}")
            return Result(name, label, "nog niet gedraaid")
        value = f"laatst gelukt {moment(last_ok, now=facts.now)}"
        if facts.now - last_ok > job.late_after:
            red = f"{job.label} is sinds {moment(last_ok, now=facts.now)} niet gelukt{error}"
            return Result(name, label, value, red=red)
        return Result(name, label, value + (f" (laatste poging mislukt{error})" if failed else ""))

    return judge


def last_backup(facts: Facts) -> Result:
    backup = facts.backup
    if backup is None:
        return Result("backup", "Laatste back-up", "geen", red="Er is nog nooit een back-up gemaakt")
    waited = facts.now - backup.made_at
    value = f"{moment(backup.made_at, now=facts.now)}, {size(backup.size)} ({age(waited)} geleden)"
    red = f"Er is sinds {age(waited)} geen back-up gemaakt" if waited > BACKUP_LATE else ""
    return Result("backup", "Laatste back-up", value, red=red)


def _disk(key: str, label: str, what: str) -> Callable[[Facts], Result]:
    def judge(facts: Facts) -> Result:
        free = facts.disk_free.get(key)
        if free is None:
            return Result(f"disk_{key}", label, "onbekend", red=f"De schijf voor {what} is niet te lezen")
        red = f"Er is nog maar {size(free)} vrij voor {what}" if free < DISK_FREE_MIN else ""
        return Result(f"disk_{key}", label, f"{size(free)} vrij", red=red)

    return judge


def version(facts: Facts) -> Result:
    return Result("version", "Versie", app_version())


def migrations(facts: Facts) -> Result:
    if not facts.unapplied:
        return Result("migrations", "Migraties", "alle uitgevoerd")
    count = len(facts.unapplied)
    names = ", ".join(facts.unapplied[:3]) + (" …" if count > 3 else "")
    noun = "migratie is" if count == 1 else "migraties zijn"
    return Result("migrations", "Migraties", names, red=f"{count} {noun} niet uitgevoerd (manage.py migrate)")


def redis(facts: Facts) -> Result:
    if facts.redis is None:
        return Result("redis", "Redis", "niet ingesteld (de cache staat in de database)")
    if facts.redis:
        return Result("redis", "Redis", "bereikbaar")
    return Result("redis", "Redis", "niet bereikbaar", red="Redis is niet bereikbaar (de site is trager)")


CHECKS: list[Check] = [
    Check("worker", "E-mailworker", _process(Heartbeat.Kind.WORKER, "De e-mailworker", "E-mailworker")),
    Check("scheduler", "Planner", _process(Heartbeat.Kind.SCHEDULER, "De planner", "Planner")),
    Check("mail_queue", "Mails in de wachtrij", _queue("mail_queue", "Mails in de wachtrij", "mails", "mail")),
    Check(
        "notice_queue",
        "Meldingen in de wachtrij",
        _queue("notice_queue", "Meldingen in de wachtrij", "notices", "melding"),
    ),
    Check("failed_mails", "Mislukte mails", failed_mails),
    *[Check(f"job:{job.name}", job.label, _job(job)) for job in JOBS],
    Check("backup", "Laatste back-up", last_backup),
    Check("disk_media", "Vrije schijfruimte (foto's)", _disk("media", "Vrije schijfruimte (foto's)", "de foto's")),
    Check(
        "disk_backup", "Vrije schijfruimte (back-ups)", _disk("backup", "Vrije schijfruimte (back-ups)", "de back-ups")
    ),
    Check("version", "Versie", version),
    Check("migrations", "Migraties", migrations),
    Check("redis", "Redis", redis),
]


# A status of another version (a deploy under way) or of another shape is not read back.
_STATUS_KEY = "operations:status:" + ",".join(Status.__dataclass_fields__) + ":" + ",".join(Result.__dataclass_fields__)


def _status_key() -> str:
    return f"{_STATUS_KEY}:{app_version()}"


def _judged(facts: Facts) -> Status:
    results = [check.judge(facts) for check in CHECKS]
    # A fresh installation is not red for what cannot have happened yet (apps/operations/first_start.py).
    return Status(now=facts.now, results=first_start_grace(results, facts=facts), gathering=secrets.token_hex(8))


def status_refresh(*, now: datetime.datetime | None = None) -> Status:
    """Gather the facts now, judge them, and keep the status for the next minute's looks."""
    status = _judged(gather(now=now))
    caches[STATUS_CACHE].set(_status_key(), status, timeout=STATUS_KEPT.total_seconds())
    return status


def system_status(*, now: datetime.datetime | None = None, fresh: bool = False) -> Status:
    """`fresh`: gathered now (the status job, which mails what turned red); else the status judged at most a
    minute ago (by the status job or an earlier look), or gathered now when there is none."""
    now = now or timezone.now()
    if not fresh:
        kept = caches[STATUS_CACHE].get(_status_key())
        if isinstance(kept, Status) and datetime.timedelta(0) <= now - kept.now <= STATUS_KEPT:
            return kept
    return status_refresh(now=now)
