"""Django's Redis cache backend, with one client per pool, and a Redis that fails costing speed only.

What a failure means is chosen per cache alias in config/settings/caches.py: `FALLBACK` names the alias
that answers instead (the database cache, for counters that must hold), or, without it, a failed call
answers like a miss (get: the default, add: False, set: nothing stored). The connect and read timeouts
in OPTIONS bound every call, and a process that saw Redis fail skips it for `SKIP_AFTER_FAILURE`
seconds, so a hung Redis costs one timeout now and then, not one per call.
"""

import logging
import pickle
import time
from urllib.parse import urlsplit

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient
from django.core.cache.backends.redis import RedisSerializer as DjangoRedisSerializer
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.retry import Retry

logger = logging.getLogger(__name__)

SKIP_AFTER_FAILURE = 5.0  # seconds

# Per Redis server, shared by the aliases and threads of this process: until when it is skipped, and
# whether it failed last (so an outage is logged once, and its end once).
_skip_until: dict[str, float] = {}
_failing: set[str] = set()


def forget_failures() -> None:
    """Try every server again now (tests start each state fresh)."""
    _skip_until.clear()
    _failing.clear()


class RedisSerializer(DjangoRedisSerializer):
    """Django's, reading a pickle as one: Django's tries every value as a number first, and the ValueError
    raised for each stored page and section was a third of the CPU of reading them. A number (`incr`'s counters)
    is stored as its digits, which never start as a pickle (protocol 2 and up) does."""

    def loads(self, data):
        if data[:1] == b"\x80":  # pickle's PROTO opcode
            return pickle.loads(data)  # noqa: S301 - our own cache's values
        return int(data)


class RedisCacheClient(DjangoRedisCacheClient):
    """Django builds a `redis.Redis` per call, and its constructor fills a table of some 170 response
    callbacks: a fifth of a millisecond, several times per page. One client per connection pool is
    thread-safe (the pool hands out the connections) and serves every call."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"serializer": RedisSerializer, **kwargs})
        self._clients = {}

    # The ignores: Django's private client internals, which the stubs leave out.
    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client

    def set_many(self, data, timeout):
        """One round trip without a transaction: a SET with its expiry per key (Django's MULTI, MSET and an
        EXPIRE per key cost a reply each). A page stores its new sections so (apps/core/page_cache.py)."""
        if timeout == 0:  # stored and gone at once, as Django's set does it
            return super().set_many(data, timeout)
        pipeline = self.get_client(write=True).pipeline(transaction=False)
        for key, value in data.items():
            pipeline.set(key, self._serializer.dumps(value), ex=timeout)  # type: ignore[attr-defined]
        pipeline.execute()
        return None

    def set_many_each(self, by_timeout):
        """`set_many` for several lifetimes in one round trip: {timeout: {key: value}}, keys already made."""
        pipeline = self.get_client(write=True).pipeline(transaction=False)
        for timeout, data in by_timeout.items():
            for key, value in data.items():
                pipeline.set(key, self._serializer.dumps(value), ex=timeout)  # type: ignore[attr-defined]
        pipeline.execute()


def _not_found(key):
    raise ValueError(f"Key '{key}' not found.")  # what incr says of a missing key: the caller starts over


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
        self._fallback = params.get("FALLBACK")
        retries = params.get("CONNECTION_RETRIES")
        if retries:  # a connection error only, at once (config/settings/caches.py)
            retry = Retry(NoBackoff(), retries, supported_errors=(RedisConnectionError,))
            self._options = {**self._options, "retry": retry}  # type: ignore[has-type]
        self._server = self._servers[0]  # type: ignore[attr-defined]  # Django's private list, not in the stubs

    def validate_key(self, key):
        """Redis takes any key. Django's check is memcached's (length, control characters), one Python step per
        character of every key: a fifth of the CPU of a page's 30-key look-up of its sections."""

    def _guarded(self, method: str, miss, *args):
        """`method` on Redis; when Redis fails or is being skipped, on the fallback alias or `miss()`."""
        fallback = self._fallback

        def elsewhere():
            return getattr(caches[fallback], method)(*args) if fallback else miss()

        return self._guarded_call(getattr(super(), method), elsewhere, *args)

    def _guarded_call(self, call, elsewhere, *args):
        """`call(*args)` on Redis; when Redis fails or is being skipped, `elsewhere()`."""
        server = self._server
        if _skip_until.get(server, 0.0) <= time.monotonic():
            try:
                result = call(*args)
            except (RedisError, OSError) as error:
                _skip_until[server] = time.monotonic() + SKIP_AFTER_FAILURE
                if server not in _failing:
                    _failing.add(server)
                    logger.warning(
                        "Redis at %s does not answer (%s: %s); %s until it does",
                        _address(server),
                        type(error).__name__,
                        error,
                        f"using the '{self._fallback}' cache" if self._fallback else "cache misses",
                    )
            else:
                if server in _failing:
                    _failing.discard(server)
                    logger.warning("Redis at %s answers again", _address(server))
                return result
        return elsewhere()

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("add", lambda: False, key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._guarded("get", lambda: default, key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("set", lambda: None, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("touch", lambda: False, key, timeout, version)

    def delete(self, key, version=None):
        return self._guarded("delete", lambda: False, key, version)

    def get_many(self, keys, version=None):
        return self._guarded("get_many", dict, keys, version)

    def has_key(self, key, version=None):
        return self._guarded("has_key", lambda: False, key, version)

    def incr(self, key, delta=1, version=None):
        return self._guarded("incr", lambda: _not_found(key), key, delta, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("set_many", lambda: list(data), data, timeout, version)

    def set_many_each(self, by_timeout: dict, version=None) -> None:
        """Values to keep for different times, {seconds: {key: value}}: on Redis in one round trip (a page and
        its new sections, apps/core/page_cache.py); elsewhere one `set_many` per lifetime."""

        def on_redis(by_timeout, version):
            self._cache.set_many_each(  # type: ignore[attr-defined]
                {
                    self.get_backend_timeout(timeout): {
                        self.make_and_validate_key(key, version=version): value for key, value in data.items()
                    }
                    for timeout, data in by_timeout.items()
                }
            )

        def elsewhere():
            for timeout, data in by_timeout.items():
                if self._fallback:
                    caches[self._fallback].set_many(data, timeout, version)

        self._guarded_call(on_redis, elsewhere, by_timeout, version)

    def delete_many(self, keys, version=None):
        return self._guarded("delete_many", lambda: None, keys, version)

    def clear(self):
        return self._guarded("clear", lambda: False)

    def ping(self) -> bool:
        """Whether Redis answers, asked through this cache's pool (the Systeemstatus): no connection of its own."""
        try:
            return bool(self._cache.get_client().ping())  # type: ignore[attr-defined]
        except (RedisError, OSError):
            return False


def _address(server: str) -> str:
    """host:port/db of a Redis URL, without a password that may be in it."""
    parts = urlsplit(server)
    return f"{parts.hostname}:{parts.port or 6379}{parts.path}"
