"""No false alarm on a fresh installation: the Systeemstatus does not turn red for what cannot have happened yet.

`make run` and a first deploy start the worker and the scheduler seconds after `migrate`, and the first backup
runs at BACKUP_HOUR: before then "never seen" and "no backup yet" are how a new installation looks, not
something that stopped. The first `migrate` is recorded (`FirstStart`, by `first_start_record` after every
migrate); from then a process never seen turns red after PROCESS_GRACE, and a missing backup once the first
BACKUP_HOUR after the first start has passed. Whatever was seen once and stopped is red at once, as before.
"""

import datetime
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from django.db import connections, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Min
from django.utils import timezone

from .formatting import moment
from .jobs import HOUR, JOBS_BY_NAME
from .models import FirstStart, Heartbeat

if TYPE_CHECKING:
    from .status import Facts, Result

# The worker and the scheduler write their first heartbeat within seconds of starting.
PROCESS_GRACE = datetime.timedelta(minutes=5)


def first_start_record(*, using: str = "default") -> datetime.datetime:
    """Record the installation's first start once: the first migration applied (so an installation from before
    this record keeps its real age), or now. Called after every `migrate`; a second call changes nothing."""
    with transaction.atomic(using=using):
        first = MigrationRecorder(connections[using]).migration_qs.aggregate(first=Min("applied"))["first"]
        record, _ = FirstStart.objects.using(using).get_or_create(
            pk=1, defaults={"started_at": first or timezone.now()}
        )
    return record.started_at


def first_started_at() -> datetime.datetime | None:
    return FirstStart.objects.filter(pk=1).values_list("started_at", flat=True).first()


def _process_red_from(first_start: datetime.datetime) -> datetime.datetime:
    return first_start + PROCESS_GRACE


def _backup_red_from(first_start: datetime.datetime) -> datetime.datetime:
    """The end of the first BACKUP_HOUR after the first start: the first backup has had its slot by then."""
    job = JOBS_BY_NAME["backup"]
    return job.slot_start(first_start) + job.every + HOUR


@dataclass(frozen=True)
class Grace:
    nothing_yet: Callable[["Facts"], bool]  # the state a fresh installation is in
    red_from: Callable[[datetime.datetime], datetime.datetime]  # from the first start
    waiting: str  # the card's value meanwhile


GRACE: dict[str, Grace] = {
    "worker": Grace(
        lambda facts: not facts.heartbeats.get(Heartbeat.Kind.WORKER), _process_red_from, "nog niet gezien"
    ),
    "scheduler": Grace(
        lambda facts: not facts.heartbeats.get(Heartbeat.Kind.SCHEDULER), _process_red_from, "nog niet gezien"
    ),
    "backup": Grace(lambda facts: facts.backup is None, _backup_red_from, "nog geen"),
}


def first_start_grace(results: list["Result"], *, facts: "Facts") -> list["Result"]:
    """`results` with the red taken off what has nothing yet within its grace period from the first start. The
    record is read only when such a check is red: a running installation's card costs no query more."""
    waiting = [
        result.name
        for result in results
        if result.red and result.name in GRACE and GRACE[result.name].nothing_yet(facts)
    ]
    first_start = first_started_at() if waiting else None
    if first_start is None:  # nothing to grace, or not recorded (a flushed database): red as found
        return results
    graced = []
    for result in results:
        if result.name in waiting:
            grace = GRACE[result.name]
            red_from = grace.red_from(first_start)
            if facts.now < red_from:
                value = (
                    f"{grace.waiting} (net gestart; rood als het er om {moment(red_from, now=facts.now)} nog niet is)"
                )
                result = replace(result, value=value, red="")
        graced.append(result)
    return graced
