"""What the work modules hand to the worker: rows written once per key, and the background tasks that take them.

The tasks are defined in tasks.py, the top of this app's line (each runs work from the modules below it), so
nothing below may import it. They enqueue through this seam instead: tasks.py registers each task here when it
is imported (NotificationsConfig.ready imports it, and the worker imports it by the task's path), and the
functions below enqueue the registered task. Queued rows keep naming `apps.notifications.tasks.<name>`.
"""

import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django_tasks.base import Task

# Mails per background task (sent over one SMTP connection): 2,000 bulk invitations are 4 tasks, not 2,000.
MAILS_PER_TASK = 500
# SQLite caps the parameters of one query.
_CHUNK = 500

_TASKS: dict[str, Task[Any, Any]] = {}


def task_register(task: Task[Any, Any]) -> Task[Any, Any]:
    """tasks.py: `@task_register` over `@task()` makes the task one this seam enqueues, by its function's name."""
    _TASKS[task.name] = task
    return task


def _task(name: str, run_after: datetime.datetime | None = None) -> Task[Any, Any]:
    try:
        task = _TASKS[name]
    except KeyError:
        raise LookupError(f"no task {name!r}: apps.notifications.tasks is imported when the apps are ready") from None
    return task.using(run_after=run_after) if run_after is not None else task


def task_path(name: str) -> str:
    """The path a queued row of this task names (DBTaskResult.task_path)."""
    return _task(name).module_path


def mails_enqueue(mail_ids: list[int]) -> None:
    """One delivery task per MAILS_PER_TASK queued mails (in the caller's transaction)."""
    for start in range(0, len(mail_ids), MAILS_PER_TASK):
        _task("deliver_mails").enqueue(mail_ids=mail_ids[start : start + MAILS_PER_TASK])


def invitation_mails_enqueue(invitation_ids: list[int]) -> None:
    """One task per MAILS_PER_TASK invitations: the worker writes their mails and sends them."""
    for start in range(0, len(invitation_ids), MAILS_PER_TASK):
        _task("send_invitation_mails").enqueue(invitation_ids=invitation_ids[start : start + MAILS_PER_TASK])


def notices_enqueue(notice_ids: list[int], *, per_task: int, run_after: datetime.datetime | None = None) -> None:
    """Delivery tasks of `per_task` notices each, at once or from `run_after` on (in the caller's transaction)."""
    task = _task("deliver_notices", run_after)
    for start in range(0, len(notice_ids), per_task):
        task.enqueue(notice_ids=notice_ids[start : start + per_task])


def claims_check_enqueue(*, run_after: datetime.datetime) -> None:
    _task("notices_check_claims", run_after).enqueue()


def club_message_fan_out_enqueue(*, message_id: int) -> None:
    _task("club_message_fan_out").enqueue(message_id=message_id)


def rows_create_once(model, rows: list) -> list:
    """Insert `Mail` or `Notice` rows, leaving out those whose `dedupe_key` is taken (told before under that key).
    Returns the rows written, with their ids. A few queries for any number of rows."""
    keys = [row.dedupe_key for row in rows if row.dedupe_key]
    taken: set[str] = set()
    for start in range(0, len(keys), _CHUNK):
        part = keys[start : start + _CHUNK]
        taken.update(model.objects.filter(dedupe_key__in=part).values_list("dedupe_key", flat=True))
    fresh = [row for row in rows if not row.dedupe_key or row.dedupe_key not in taken]
    if not fresh:
        return []
    try:
        with transaction.atomic():
            return model.objects.bulk_create(fresh, batch_size=_CHUNK)
    except IntegrityError:
        # The same change told twice at once (two cron runs): the other call wrote some of these keys meanwhile.
        # Row by row then, each in its savepoint, so that only the rows written here are told.
        written = []
        for row in fresh:
            try:
                with transaction.atomic():
                    row.save(force_insert=True)
            except IntegrityError:
                row.pk = None
                continue
            written.append(row)
        return written
