"""The claims of outbox delivery (outbox.py, for mail and notices): a run's claim token, held as a PostgreSQL
advisory lock for as long as the run lives, whether its owner still lives (recovery asks), the check-up a
notice claim queues, and how often a notice is tried."""

import datetime
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.core.sql_registry import register

from .models import Notice
from .queueing import claims_check_enqueue, task_path

# After the first try: the waits before each next one. The push service's Retry-After wins when it is longer.
RETRY_DELAYS = [datetime.timedelta(minutes=1), datetime.timedelta(minutes=5), datetime.timedelta(minutes=30)]

# The advisory lock's first key: this app's claims, apart from any other use of advisory locks.
CLAIM_LOCK_CLASS = 36
_NO_SESSION_LOCKS = "SQLite has no session locks: recovery goes by the clock alone"
_TRY_LOCK = register(
    "notices.claim_try_lock",
    postgresql="SELECT pg_try_advisory_lock(%s, %s)",
    without=_NO_SESSION_LOCKS,
    example=[CLAIM_LOCK_CLASS, 2**31 - 1],
    alone=True,
)
_LOCK = register(
    "notices.claim_lock",
    postgresql="SELECT pg_advisory_lock(%s, %s)",
    without=_NO_SESSION_LOCKS,
    example=[CLAIM_LOCK_CLASS, 2**31 - 1],
    alone=True,
)
_UNLOCK = register(
    "notices.claim_unlock",
    postgresql="SELECT pg_advisory_unlock(%s, %s)",
    without=_NO_SESSION_LOCKS,
    example=[CLAIM_LOCK_CLASS, 2**31 - 1],
    alone=True,
)

# How long after a claim its check-up runs (tasks.notices_check_claims): a restarted worker takes a killed
# one's notices on within about this long, whatever else is queued.
CLAIM_CHECK_AFTER = datetime.timedelta(seconds=20)


def claim_owner_alive(token: int) -> bool:
    """Whether the run that claimed under this token still lives (holds its advisory lock). PostgreSQL drops
    a session's locks when its process dies, however it died."""
    if connection.vendor != "postgresql":
        return True  # no session locks: recovery goes by the clock alone
    with connection.cursor() as cursor:
        cursor.execute(_TRY_LOCK.sql(connection.vendor), [CLAIM_LOCK_CLASS, token])
        (free,) = cursor.fetchone()
        if free:
            cursor.execute(_UNLOCK.sql(connection.vendor), [CLAIM_LOCK_CLASS, token])
    return not free


@contextmanager
def claim_token() -> Iterator[int]:
    """A fresh token, its advisory lock held until the block ends."""
    token = secrets.randbelow(2**31 - 1) + 1
    if connection.vendor != "postgresql":
        yield token
        return
    with connection.cursor() as cursor:
        cursor.execute(_LOCK.sql(connection.vendor), [CLAIM_LOCK_CLASS, token])
    try:
        yield token
    finally:
        with connection.cursor() as cursor:
            cursor.execute(_UNLOCK.sql(connection.vendor), [CLAIM_LOCK_CLASS, token])


def claims_watch() -> None:
    """While notices are claimed, one check-up waits in the queue (never two)."""
    if not Notice.objects.filter(status=Notice.Status.SENDING).exists():
        return
    waiting = DBTaskResult.objects.filter(status="READY", task_path=task_path("notices_check_claims"))
    if not waiting.exists():
        claims_check_enqueue(run_after=timezone.now() + CLAIM_CHECK_AFTER)
