"""Background tasks (django-tasks with its database backend) left behind by a worker that died.

`db_worker` marks a task RUNNING when it claims it and FINISHED when it is done; a worker killed in
between (kill -9, or Docker's SIGKILL after SIGTERM) leaves it RUNNING for ever, and django-tasks-db has
no heartbeat to notice. A task running longer than BACKGROUND_STUCK_AFTER_SECONDS is put back to READY
for the next worker. That may run a task twice when it was only slow, so every task of this app is
idempotent: mails check their row under a lock, an export checks its job id.
"""

import datetime

from django.conf import settings
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult


def stuck_tasks_requeue(*, now: datetime.datetime | None = None) -> int:
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)
    # One UPDATE with the status in its WHERE: two cron runs at once put each task back once.
    return DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, started_at__lte=cutoff).update(
        status=TaskResultStatus.READY, started_at=None
    )
