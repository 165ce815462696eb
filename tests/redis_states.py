"""Redis up, down and hung, configured as `REDIS_URL` configures a site (config/settings/caches.py).

- up: a real Redis, `TEST_REDIS_URL` (default redis://127.0.0.1:6379/15, a database the tests empty);
  with `REDIS_REQUIRED=1` (CI) a Redis that does not answer fails the test instead of skipping it. Under
  pytest-xdist each worker empties its own database: gw0 the one named, gw1 the one below it, and so on.
- down: a port on 127.0.0.1 where nothing listens.
- hung: a server that accepts connections, reads what it is sent and never answers.
"""

import os
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest

from config.cache import forget_failures
from config.settings.caches import cache_settings


def _per_worker(url: str) -> str:
    """The Redis database of this pytest-xdist worker (gw<n>: the named database minus n), so that one
    worker's flushdb never empties what another worker's test has just stored."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    address = urlsplit(url)
    database = int(address.path.strip("/") or 0) - int(worker[2:])
    if database < 0:
        raise RuntimeError(f"TEST_REDIS_URL {url} leaves no Redis database for {worker}: name a higher one")
    return urlunsplit(address._replace(path=f"/{database}"))


TEST_REDIS_URL = _per_worker(os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
REDIS_STATES = ["up", "down", "hung"]
TIMEOUT_MS = 200  # the tests' connect and read timeout (the site's default is REDIS_TIMEOUT_MS)


def redis_answers(url: str = TEST_REDIS_URL) -> bool:
    address = urlsplit(url)
    try:
        with socket.create_connection((address.hostname, address.port or 6379), timeout=0.5):
            return True
    except OSError:
        return False


def require_redis() -> None:
    if not redis_answers():
        reason = f"no Redis at {TEST_REDIS_URL} (.ci/run starts one)"
        if os.environ.get("REDIS_REQUIRED") == "1":
            pytest.fail(f"REDIS_REQUIRED=1 but {reason}", pytrace=False)
        pytest.skip(reason)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class HungRedis:
    """Accepts every connection and never answers. A connection the client still holds after `guard`
    seconds is closed here and counted: a call that waited that long was not bounded by its timeout
    (and the test ends instead of hanging)."""

    def __init__(self, guard: float = 5.0):
        self.guard = guard
        self.accepted = 0
        self.held_too_long = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._listener.close()

    def _serve(self):
        selector = selectors.DefaultSelector()
        selector.register(self._listener, selectors.EVENT_READ)
        since: dict[socket.socket, float] = {}
        while not self._stop.is_set():
            for key, _ in selector.select(timeout=0.05):
                if key.fileobj is self._listener:
                    connection, _ = self._listener.accept()
                    connection.setblocking(False)
                    selector.register(connection, selectors.EVENT_READ)
                    since[connection] = time.monotonic()
                    self.accepted += 1
                elif not key.fileobj.recv(65536):  # the client gave up and closed
                    self._close(selector, since, key.fileobj)
            for connection, opened in list(since.items()):
                if time.monotonic() - opened > self.guard:
                    self.held_too_long += 1
                    self._close(selector, since, connection)
        for connection in list(since):
            self._close(selector, since, connection)
        selector.close()

    @staticmethod
    def _close(selector, since, connection):
        selector.unregister(connection)
        since.pop(connection)
        connection.close()


@contextmanager
def redis_url_in_state(state: str) -> Iterator[str]:
    if state == "up":
        require_redis()
        yield TEST_REDIS_URL
    elif state == "down":
        yield f"redis://127.0.0.1:{closed_port()}/0"
    else:
        with HungRedis() as hung:
            yield f"redis://127.0.0.1:{hung.port}/0"
        assert hung.accepted, "the app never tried the hung Redis"
        assert not hung.held_too_long, f"a cache call waited more than {hung.guard} s on a hung Redis"


@contextmanager
def caches_in_state(settings, state: str, *, empty: bool = True) -> Iterator[str]:
    """The site's caches with `REDIS_URL` pointing at a Redis in `state`, emptied first unless not `empty`."""
    from django.core.cache import cache

    with redis_url_in_state(state) as url:
        settings.CACHES = cache_settings(url, timeout_ms=TIMEOUT_MS)
        if empty:
            cache.clear()
        forget_failures()  # the test meets a Redis that is down or hung itself, not a skipped one
        try:
            yield state
        finally:
            forget_failures()
