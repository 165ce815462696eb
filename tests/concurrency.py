"""Run the same call from many threads at once, each with its own database connection (PostgreSQL)."""

import os
import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections


def requires_postgresql():
    """Skip on SQLite for a quick local run; with POSTGRES_REQUIRED=1 (CI sets it) a missing PostgreSQL fails."""
    if connection.vendor != "postgresql":
        reason = "concurrency tests need PostgreSQL row locks: set DATABASE_URL (CI does)"
        if os.environ.get("POSTGRES_REQUIRED") == "1":
            pytest.fail(f"POSTGRES_REQUIRED=1 but the database is {connection.vendor}; {reason}", pytrace=False)
        pytest.skip(reason)


def run_concurrently(fn: Callable[[int], object], *, times: int = 20, timeout: float = 30.0) -> list[object]:
    """Start `times` threads behind one barrier so they hit the database together.

    Returns each thread's result, or the exception it raised, in thread order.
    """
    barrier = threading.Barrier(times)
    results: list[object] = [None] * times

    def worker(index: int) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[index] = fn(index)
        except Exception as exc:  # noqa: BLE001 - the test inspects what each thread got
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return results


def wait_for_lock_waiters(count: int, *, timeout: float = 30.0) -> None:
    """Wait until `count` sessions of the test database wait on a row or transaction lock (PostgreSQL), so a
    test can line transactions up in one exact order instead of hoping the threads interleave."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0] >= count:
                return
        assert time.monotonic() < deadline, f"fewer than {count} sessions came to wait on a lock"
        time.sleep(0.02)


def in_thread(fn: Callable[[], object]) -> Callable[[float], object]:
    """Run `fn` in a thread with its own database connection; the returned `join(timeout)` gives its result or
    the exception it raised."""
    result: list[object] = [None]

    def worker() -> None:
        try:
            result[0] = fn()
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            result[0] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=worker)
    thread.start()

    def join(timeout: float = 30.0) -> object:
        thread.join(timeout)
        assert not thread.is_alive(), "a thread hung"
        return result[0]

    return join
