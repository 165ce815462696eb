"""The versions a cached page's key holds, kept in the `pages` cache: a shared scope's version and a member's
part's are random tokens (never one an old page may carry, also when the cache lost them), read together with
the stored page in one call and moved by `pages_changed` (page_cache.py) with new tokens; the member's own
version is her row's `pages_version`. Every cache call is bounded: a cache that is down costs speed, never the
page (its versions are None, and a page with a missing version is rendered and not stored)."""

import hashlib
import logging
import secrets
from collections.abc import Callable, Iterable

from django.core.cache import caches

logger = logging.getLogger(__name__)


def member_version_name(part: str, user_id: int) -> str:
    return f"{part}:{user_id}"


def member_versions(user_id: int, *parts: str) -> tuple:
    """The versions of parts of one member's data (None where the cache is down)."""
    return shared_versions(*(member_version_name(part, user_id) for part in parts))


def remembered(key: Iterable, make: Callable[[], object], *, seconds: int):
    """What `make()` returns, from the cache when it was made for this key less than `seconds` ago. A key
    with a missing version (the cache is down) is made and not stored."""
    key = ("value", *key)
    if None in key:
        return make()
    stored_under = cache_key(key)
    value = cache_call("get", stored_under)
    if value is None:
        value = make()
        cache_call("set", stored_under, value, seconds)
    return value


def shared_versions(*names: str) -> tuple:
    """The current versions of shared data, for a page's key. A version is a random token, never one an
    old page may carry, also when the cache lost it (a new or emptied cache). None where the cache is down."""
    return versions_and_value(names, None)[0]


def versions_and_value(names: tuple[str, ...], key: str | None) -> tuple[tuple, object]:
    """The versions of `names` and the value stored under `key`, in one cache call while every version is there."""
    keys = [f"version:{name}" for name in names]
    found = cache_call("get_many", [*keys, key] if key else keys) or {}
    for version_key in keys:
        if version_key not in found:
            cache_call("add", version_key, new_version(), None)
            found[version_key] = cache_call("get", version_key)
    return tuple(found[version_key] for version_key in keys), found.get(key) if key else None


def bump(*names: str) -> None:
    # New tokens, not increments (two bumps at once never end on one version); all in one call, one round trip.
    cache_call("set_many", {f"version:{name}": new_version() for name in names}, None)


def new_version() -> str:
    return secrets.token_hex(8)


def cache_key(parts: tuple) -> str:
    """Short and plain whatever the parts hold (a cursor from a query string, for instance)."""
    return f"{parts[0]}:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def cache_call(method: str, *args):
    try:
        return getattr(caches["pages"], method)(*args)
    except Exception:  # noqa: BLE001 - a cache that is down costs speed, not the page
        logger.warning("cache unavailable (%s)", method, exc_info=True)
        return None
