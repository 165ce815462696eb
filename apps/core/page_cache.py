"""Cached pages: a page is rendered once per version of what it shows and served from the cache after
that, until one of those versions moves.

Declared, not remembered:
- `SCOPES` is the one list of what pages can show: the member's own data, the club's figures, the
  catalogue, the events. A new feature whose pages show something else adds a scope here.
- A view says which scopes its page shows with `@cached_page(...)`, which builds the key: the view, the
  release (templates and static files, so a deploy never serves a page of the last one), the scopes'
  versions and, always, the signed-in member and their version. A view cannot leave the member out.
- A write says which scopes it changes with `pages_changed(...)`, inside its transaction. That is the one
  way; tests/test_page_cache.py finds every caller and checks that each one makes the next visit fresh.

The member's version is `User.pages_version` (moved in the transaction of the change, so it commits with
the data); a shared version is a random token in the cache (apps/core/page_versions.py), and so is the
version of a part of one member's data (`member_dips`, moved by her dips only: every page of hers holds it,
and her cached sections that do not show it survive her dip, apps/core/page_sections.py). A page is kept
with the versions it was rendered for and served only while they are the current ones (one cache call
brings the versions and the page); a section's key holds its versions. Nothing is ever deleted: a page is
replaced by its next render, old sections expire. Pages are stored compressed (a dashboard's 17 KB is about
4 KB in the cache).

What belongs to one request stays out: a page is rendered with a placeholder where its CSRF token goes,
and each request puts its own token there; a request with messages to show is rendered, not cached.
A cache that is down costs speed, never the page: every cache error falls back to rendering (the `pages`
alias answers a failing Redis like a miss, config/settings/caches.py; an error of any other cache too).
"""

import datetime
import functools
import hashlib
import hmac
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone

from .page_versions import bump, cache_call, cache_key, member_version_name, versions_and_value
from .stored_html import STORED_AS, compressed, decompressed

PAGE_TIMEOUT = 60 * 60 * 24  # seconds: a page nobody asks for again leaves the cache
# What a cacheable page shows, as a short digest: the service worker shows its kept copy of such a page at
# once and swaps in the fresh one only when this differs (frontend/src/sw/pages.ts).
PAGE_DIGEST_HEADER = "X-Koud-Page"


@dataclass(frozen=True)
class Scope:
    name: str
    shows: str  # what a page under this scope shows, for the reader
    # A part of one member's data with a version of its own per member, so that a write of only that part
    # (her dip) leaves her other cached sections alone. Every member page still holds it in its key.
    per_member: bool = False


SCOPES: dict[str, Scope] = {}


def _scope(name: str, shows: str, *, per_member: bool = False) -> str:
    SCOPES[name] = Scope(name, shows, per_member)
    return name


MEMBER = _scope("member", "one member's own data: name, role, cards, dips, badges, sign-ups, settings")
CLUB = _scope("club", "the club's figures on /admin: members, subscribers, dips, cards, badges, physical badges")
CATALOGUE = _scope("catalogue", "the challenges and their badges")
EVENTS = _scope("events", "the events, their participant counts and waitlists")
CLUB_MESSAGES = _scope("club_messages", "the club messages admins sent to every member")
CLUB_CHALLENGES = _scope(
    "club_challenges", "the dated club challenges, how many take part and the club goals' totals of dips"
)
FEED = _scope("feed", "the club feed: what members share, their Brrr!s, the items admins hid")
TOGETHER = _scope("together", "the club's plonsafspraken and who goes along (/samen, the dashboard block)")
MEMBER_DIPS = _scope(
    "member_dips", "one member's dips and what they count for: her cards' counts, badges, statistics", per_member=True
)


def member_parts() -> tuple[str, ...]:
    """The parts of a member's data with versions of their own (every member page's key holds them all)."""
    return tuple(name for name, scope in SCOPES.items() if scope.per_member)


@lru_cache(maxsize=1)
def csrf_placeholder() -> str:
    """Where a cached page's CSRF token goes. Derived from the secret key: the same in every process of
    one site, and not something a member can type into a note to be filled in."""
    return "csrf-" + hmac.new(settings.SECRET_KEY.encode(), b"page-cache-csrf", hashlib.sha256).hexdigest()[:32]


@lru_cache(maxsize=1)
def release() -> str:
    """What this deploy renders with: every template and the static and Vite manifests, hashed once."""
    digest = hashlib.sha256(STORED_AS.encode())  # how pages are kept in the cache
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


def pages_changed(*scopes: str, user_ids: Iterable[int] = ()) -> None:
    """Declare what a write changes, inside its transaction: every page that shows one of `scopes` is
    rendered anew on its next visit. `MEMBER` takes the members whose own pages changed (`user_ids`); their
    version moves in this transaction, so it commits with the data. A part of the members' data
    (`MEMBER_DIPS`: a dip) instead moves only that part's version of each of them: their pages, and their
    sections that show the part, are new; their other sections are kept. A shared scope's version (and a
    part's) moves now (later reads in this transaction get new pages) and again after the commit, because a
    reader in between may have stored the old data under the first new version."""
    _check_scopes(scopes)
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("pages_changed() belongs inside the transaction of the write it declares")
    user_ids = list(user_ids)
    parts = [name for name in scopes if SCOPES[name].per_member]
    if MEMBER in scopes:
        get_user_model().objects.filter(pk__in=user_ids).update(pages_version=F("pages_version") + 1)
    elif user_ids and not parts:
        raise ValueError("user_ids are for the member scope or a part of it: declare MEMBER or the part too")
    elif parts and not user_ids:
        raise ValueError(f"{parts} change members' own data: name them in user_ids")
    names = [name for name in scopes if name != MEMBER and name not in parts]
    names += [member_version_name(part, user_id) for part in parts for user_id in user_ids]
    if names:
        bump(*names)
        transaction.on_commit(functools.partial(bump, *names))


def _check_scopes(scopes: Iterable[str]) -> None:
    unknown = set(scopes) - SCOPES.keys()
    if unknown:
        raise ValueError(f"unknown page scopes {sorted(unknown)}: add them to apps.core.page_cache.SCOPES")


@dataclass(frozen=True)
class CachedView:
    """The marker `cached_page` leaves on a view (and Django's decorators around it keep): what it shows."""

    scopes: tuple[str, ...]
    template: str


@dataclass
class Page:
    """What a cached page shows (the template's context), and how long that stays true when no version
    moves: until the first event listed starts, for instance. Values a cached section shows may be lazy
    (`lazy_value`, or an object with cached properties): a section served from the cache never reads them."""

    context: dict
    valid_for: float = PAGE_TIMEOUT


_VALID_UNTIL = "_page_valid_until"  # the context's list of moments a section stops being true at
# The context's key of the `PageSections` of a page being rendered that may be stored.
SECTION_BASE = "_page_section_base"

# A section in its page's list of those it showed: template, name, scopes, the `by` values of each time shown.
ShownSection = tuple[str, str, tuple[str, ...], tuple[tuple, ...]]


@dataclass
class PageSections:
    """What the cached sections of one page share while it renders (apps/core/page_sections.py)."""

    base: tuple  # the page's key without its versions: a section's key adds the versions of its scopes
    versions: dict[str, object]  # by scope, the versions the page shows
    earlier: tuple[ShownSection, ...]  # what the last render of this page showed: asked for at its first section
    shown: list[ShownSection] = field(default_factory=list)  # what this render shows, kept with the page
    found: dict[str, object] = field(default_factory=dict)  # cache key -> stored section (None: not there)
    asked: set[str] = field(default_factory=set)  # the templates whose sections without `by` were asked for
    new: dict[int, dict[str, object]] = field(default_factory=dict)  # seconds to keep -> cache key -> to store
    moments: list[datetime.datetime] = field(default_factory=list)  # when what the page shows stops being true


# The page being made and rendered while it may be stored: for lazy values and values kept by scope.
serving_page: ContextVar[PageSections | None] = ContextVar("serving_page", default=None)


def page_valid_until(context, moment: datetime.datetime) -> None:
    """For a section that brings its own data (an inclusion tag) and shows something the clock ends, such
    as a download link until it expires: the cached page is rendered anew from `moment` on. Outside a
    cached page (a page rendered on every visit) it does nothing."""
    moments = context.get(_VALID_UNTIL)
    if moments is not None:
        moments.append(moment)


def valid_until(moment: datetime.datetime) -> None:
    """`page_valid_until` for a lazy value, which has no template context: the page being rendered."""
    page = serving_page.get()
    if page is not None:
        page.moments.append(moment)


def cached_page(
    *scopes: str,
    template: str,
    query: Iterable[str] = (),
    vary: Callable[[HttpRequest], tuple] | None = None,
):
    """View decorator: the page the view describes, from the cache when it was rendered for this key before.

    The view returns a `Page` (the template's context), or a response of its own (a redirect), which is
    not stored. The key holds the view and its arguments, the release, the versions of `scopes` and
    always the signed-in member with their version: the member is added here, a view cannot forget it.
    `query` names the GET parameters that choose what the page shows (a page number; others are ignored),
    `vary` returns more of the request the page depends on (the day, the site's host). Put the access
    checks outside this decorator: a page served from the cache does not run the view."""
    _check_scopes(scopes)
    shown_scopes = tuple(dict.fromkeys((MEMBER, *scopes)))
    # Every member page holds all parts of the member's data in its key (member_parts), declared or not.
    shared = tuple(name for name in shown_scopes if name != MEMBER and not SCOPES[name].per_member)
    query = tuple(query)

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            user = request.user
            chosen_by, versions, version_names = None, {}, {}
            if user.is_authenticated:
                # What chooses the page besides versions: its sections' keys hold it too.
                chosen_by = (
                    f"{view.__module__}.{view.__qualname__}",
                    MEMBER,
                    user.pk,
                    args,
                    sorted(kwargs.items()),
                    tuple(tuple(request.GET.getlist(name)) for name in query),
                    *(vary(request) if vary else ()),
                )
                # The versions its sections choose from (a section shows only what its page declares): the
                # member's, and by scope the name of each version kept in the cache.
                versions = {MEMBER: user.pages_version}
                version_names = {name: name for name in shared}
                version_names |= {part: member_version_name(part, user.pk) for part in member_parts()}
            return _serve(
                request,
                chosen_by=chosen_by,
                versions=versions,
                version_names=version_names,
                template=template,
                make=lambda: view(request, *args, **kwargs),
            )

        wrapper.cached_page = CachedView(scopes=shown_scopes, template=template)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _serve(
    request,
    *,
    chosen_by: tuple | None,
    versions: dict[str, object],
    version_names: dict[str, str],
    template: str,
    make: Callable[[], Page | HttpResponseBase],
) -> HttpResponseBase:
    """The page from the cache when it was stored for the current versions, else rendered from `make()` and
    stored. `versions` holds the member's version by scope, `version_names` the cache's names of the others.
    Nobody signed in (no `chosen_by`), a missing version (the cache is down) or a request with messages:
    rendered, not stored, and its sections rendered too.

    A page is stored under what chooses it (`chosen_by`, the release) with the versions it was rendered for and
    the sections it showed: one cache call brings the current versions and the page, served when its versions
    are current, else its sections come in one more call (apps/core/page_sections.py). A reader that rendered
    before a write's versions moved stored its page with the old versions, which no visit serves."""
    slot, sections, kept, earlier = "", (), None, ()
    shown_for: tuple = ()
    if chosen_by is not None and not len(messages.get_messages(request)):
        slot = cache_key(("page", release(), *chosen_by))
        sections = ("section", release(), *chosen_by)
        current, stored = versions_and_value(tuple(version_names.values()), slot)
        versions = {**versions, **dict(zip(version_names, current, strict=True))}
        shown_for = tuple(versions.values())
        if isinstance(stored, tuple) and len(stored) == 3:
            kept, earlier = (stored[1] if stored[0] == shown_for else None), stored[2]
    cacheable = bool(slot) and None not in shown_for
    if cacheable and kept is not None:
        body = decompressed(kept)
    else:
        page_sections = PageSections(base=sections, versions=versions, earlier=earlier)
        token = serving_page.set(page_sections if cacheable else None)
        try:
            shown = make()
            if isinstance(shown, HttpResponseBase):
                return shown
            context = {**shown.context, "csrf_token": csrf_placeholder(), _VALID_UNTIL: page_sections.moments}
            if cacheable:
                context[SECTION_BASE] = page_sections
            body = render_to_string(template, context, request).encode()
        finally:
            serving_page.reset(token)
        now = timezone.now()
        valid_for = min([shown.valid_for, *((moment - now).total_seconds() for moment in page_sections.moments)])
        to_store = page_sections.new
        if cacheable and valid_for >= 1:
            page = (shown_for, compressed(body), tuple(page_sections.shown))
            to_store.setdefault(min(int(valid_for), PAGE_TIMEOUT), {})[slot] = page
        if to_store:
            _store(to_store)
    response = HttpResponse(body.replace(csrf_placeholder().encode(), get_token(request).encode()))
    if cacheable:
        response[PAGE_DIGEST_HEADER] = hashlib.sha256(body).hexdigest()[:20]
    return response


def _store(by_lifetime: dict[int, dict[str, object]]) -> None:
    """What a render stores, by seconds to keep: in one call where the cache keeps each key for its own time
    (Redis: one round trip, config/cache.py), else in one call per lifetime."""
    if hasattr(caches["pages"], "set_many_each"):
        return cache_call("set_many_each", by_lifetime)
    for seconds, values in by_lifetime.items():
        cache_call("set_many", values, seconds)
    return None
