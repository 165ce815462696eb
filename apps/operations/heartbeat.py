"""Heartbeats of the long-running processes: the task worker (`manage.py worker`) and the scheduler
(`manage.py scheduler`). A thread of the process writes one every HEARTBEAT_SECONDS; a process that
stops gracefully says so (`stopped_at`). The Systeemstatus and `manage.py alive` read them."""

import datetime
import logging
import os
import socket
import threading

from django.db import IntegrityError, connections, transaction
from django.utils import timezone

from .models import Heartbeat

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 20
# A heartbeat older than this belongs to a process that died (or hangs): a few beats missed.
STALE_AFTER = datetime.timedelta(seconds=90)
# Heartbeats of processes gone this long are removed (the newest of each kind stays: "draait niet sinds").
KEEP = datetime.timedelta(days=7)


def this_host() -> str:
    return socket.gethostname()[:255]


def heartbeat_beat(*, kind: str, now: datetime.datetime | None = None) -> None:
    """This process is alive."""
    now = now or timezone.now()
    host, pid = this_host(), os.getpid()
    updated = Heartbeat.objects.filter(kind=kind, host=host, pid=pid).update(seen_at=now, stopped_at=None)
    if not updated:
        try:
            with transaction.atomic():
                Heartbeat.objects.create(kind=kind, host=host, pid=pid, started_at=now, seen_at=now)
        except IntegrityError:  # a pid reused by a new process of the same kind: the same row
            Heartbeat.objects.filter(kind=kind, host=host, pid=pid).update(seen_at=now, stopped_at=None)


def heartbeat_stop(*, kind: str, now: datetime.datetime | None = None) -> None:
    """This process stops gracefully: the status says so at once, not after STALE_AFTER."""
    now = now or timezone.now()
    Heartbeat.objects.filter(kind=kind, host=this_host(), pid=os.getpid()).update(seen_at=now, stopped_at=now)


def heartbeats_prune(*, now: datetime.datetime | None = None) -> int:
    now = now or timezone.now()
    newest: dict[str, int] = {}
    for kind, pk in Heartbeat.objects.order_by("kind", "-seen_at", "-pk").values_list("kind", "pk"):
        newest.setdefault(kind, pk)
    old = Heartbeat.objects.filter(seen_at__lt=now - KEEP).exclude(pk__in=list(newest.values()))
    deleted, _ = old.delete()
    return deleted


def is_fresh(heartbeat: Heartbeat, now: datetime.datetime) -> bool:
    return heartbeat.stopped_at is None and now - heartbeat.seen_at <= STALE_AFTER


class Beating:
    """`with Beating(kind):` a daemon thread writes this process's heartbeat until the block ends, then the
    process is marked stopped. The thread has its own database connection, closed after each beat."""

    def __init__(self, kind: str, *, seconds: float = HEARTBEAT_SECONDS):
        self.kind = kind
        self.seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{kind}", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                heartbeat_beat(kind=self.kind)
            except Exception:  # noqa: BLE001 - a database that is away for a moment must not end the process
                logger.warning("heartbeat of the %s not written", self.kind, exc_info=True)
            finally:
                connections.close_all()  # this thread's own connections
            self._stop.wait(self.seconds)

    def __enter__(self) -> "Beating":
        self._thread.start()  # its first beat is at once: `alive` is true as soon as the process runs
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            heartbeat_stop(kind=self.kind)
        except Exception:  # noqa: BLE001 - stopping anyway
            logger.warning("stop of the %s not recorded", self.kind, exc_info=True)
