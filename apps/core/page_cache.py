"""Cached pages (/dashboard, /challenge, /admin): a page is rendered once per version of what it shows
and served from the cache after that, until one of those versions moves.

A page's key names every version it depends on: the member's own (`User.pages_version`, bumped by the
services in the transaction that changes what the member's pages show) and shared ones kept in the
cache (`shared_versions`: the catalogue, the events, the club's figures), plus the release (templates
and static files), so a deploy never serves a page of the last one. A moved version is a new key:
nothing is ever deleted, old pages expire. Pages are stored compressed (a dashboard's 17 KB is about
4 KB in the cache).

What belongs to one request stays out: a page is rendered with a placeholder where its CSRF token goes,
and each request puts its own token there; a request with messages to show is rendered, not cached.
A cache that is down costs speed, never the page: every cache error falls back to rendering (the `pages`
alias answers a failing Redis like a miss, config/settings/caches.py; an error of any other cache too).
"""

import hashlib
import hmac
import logging
import secrets
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.db import transaction
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

PAGE_TIMEOUT = 60 * 60 * 24  # seconds: a page nobody asks for again leaves the cache


@lru_cache(maxsize=1)
def csrf_placeholder() -> str:
    """Where a cached page's CSRF token goes. Derived from the secret key: the same in every process of
    one site, and not something a member can type into a note to be filled in."""
    return "csrf-" + hmac.new(settings.SECRET_KEY.encode(), b"page-cache-csrf", hashlib.sha256).hexdigest()[:32]


@lru_cache(maxsize=1)
def release() -> str:
    """What this deploy renders with: every template and the static and Vite manifests, hashed once."""
    digest = hashlib.sha256()
    # How static URLs are made (config/staticfiles.py) changes every page without changing a file here.
    digest.update(repr(settings.STORAGES["staticfiles"]).encode())
    folders = [Path(folder) for engine in settings.TEMPLATES for folder in engine.get("DIRS", [])]
    files = sorted(path for folder in folders for path in folder.rglob("*.html"))
    files += [Path(settings.STATIC_ROOT or "") / "staticfiles.json"]
    files += [Path(app["manifest_path"]) for app in settings.DJANGO_VITE.values()]
    for path in files:
        digest.update(str(path).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"-")
    return digest.hexdigest()[:16]


@dataclass
class Page:
    """What a cached page shows (the template's context), and how long that stays true when no version
    moves: until the first event listed starts, for instance."""

    context: dict
    valid_for: float = PAGE_TIMEOUT


def cached_page(request, *, key: Iterable, template: str, page: Callable[[], Page | None]) -> HttpResponse | None:
    """The page `template` shows with `page()`, from the cache when it was rendered for this key before.
    None when `page()` is None (nothing to show: the caller redirects); that is not stored. A key with a
    missing version (the cache is down) is rendered and not stored."""
    key = ("page", release(), *key)
    cacheable = None not in key and not len(messages.get_messages(request))
    cache_key = _cache_key(key)
    stored = _cache_call("get", cache_key) if cacheable else None
    if stored is not None:
        html = zlib.decompress(stored).decode()
    else:
        shown = page()
        if shown is None:
            return None
        html = render_to_string(template, {**shown.context, "csrf_token": csrf_placeholder()}, request)
        if cacheable and shown.valid_for >= 1:
            _cache_call("set", cache_key, zlib.compress(html.encode()), min(int(shown.valid_for), PAGE_TIMEOUT))
    return HttpResponse(html.replace(csrf_placeholder(), get_token(request)))


def remembered(key: Iterable, make: Callable[[], object], *, seconds: int):
    """What `make()` returns, from the cache when it was made for this key less than `seconds` ago. A key
    with a missing version (the cache is down) is made and not stored."""
    key = ("value", *key)
    if None in key:
        return make()
    cache_key = _cache_key(key)
    value = _cache_call("get", cache_key)
    if value is None:
        value = make()
        _cache_call("set", cache_key, value, seconds)
    return value


def shared_versions(*names: str) -> tuple:
    """The current versions of shared data, for a page's key. A version is a random token, never one an
    old page may carry, also when the cache lost it (a new or emptied cache). None where the cache is down."""
    keys = [f"version:{name}" for name in names]
    found = _cache_call("get_many", keys) or {}
    for key in keys:
        if key not in found:
            _cache_call("add", key, _new_version(), None)
            found[key] = _cache_call("get", key)
    return tuple(found[key] for key in keys)


def shared_version_bump(name: str) -> None:
    """Call inside the transaction that changes shared data: the version moves now (later reads in this
    transaction get new pages) and again after the commit, because a reader in between may have stored
    the old data under the first new version."""
    _bump(name)
    transaction.on_commit(lambda: _bump(name))


def _bump(name: str) -> None:
    # A new token, not an increment: two bumps at once both end on a version no page was stored under
    # (the database cache increments by reading and writing, and two increments can end on one number).
    _cache_call("set", f"version:{name}", _new_version(), None)


def _new_version() -> str:
    return secrets.token_hex(8)


def _cache_key(parts: tuple) -> str:
    """Short and plain whatever the parts hold (a cursor from a query string, for instance)."""
    return f"{parts[0]}:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _cache_call(method: str, *args):
    try:
        return getattr(caches["pages"], method)(*args)
    except Exception:  # noqa: BLE001 - a cache that is down costs speed, not the page
        logger.warning("cache unavailable (%s)", method, exc_info=True)
        return None
