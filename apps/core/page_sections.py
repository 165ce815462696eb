"""Cached sections: the parts of a cached page, each kept by the scopes it shows, so that a write renders
anew only the sections it changed (issue 37). The page around them is still cached whole
(apps/core/page_cache.py); a section is what is left of the work when the page must be rendered again.

    {% load page_sections %}
    {% cached_section "badges" "member_dips" "catalogue" %} ... {% endcached_section %}
    {% cached_section "start" "catalogue" by dashboard.can_start %} ... {% endcached_section %}

Declared, not remembered: the first word is the section's name (unique in its template), the rest are the
scopes of `SCOPES` it shows, as quoted words, so tests/test_page_cache_declared.py reads them from the
templates. The key holds the page's own choosers (the view, its arguments and query, the day...) and always
the signed-in member, plus the versions of the declared scopes only: `member` is the member's data as her
writes declare it (her `pages_version`); a part with its own version (`member_dips`: her dips and what they
count for) is that version and hers, and a section that shows the part must name it, since a dip moves only
the part: a section of `member` alone (her name, her sign-ups) is kept through her dip, one of "catalogue"
alone through all her changes. `by` adds plain values to the key that choose the section within its scopes
and cost less to read than the section costs to render (whether she may start a challenge: the catalogue's
section then survives her dips, which rarely change that).

A section is cached only inside a page that may be cached (a signed-in member, no messages to show): so a
one-time message is never in one, and its CSRF token is the page's placeholder, filled in per request. The
moments a section stops being true at (page_valid_until, valid_until) are stored with it and handed to the
page again when the section comes from the cache. Values only a section reads should be lazy in the view's
context (`lazy_value`, cached properties): a section served from the cache never reads them. Data the view
itself needs to order or key its sections (the plan list's events, merged with the afspraken) is a
`kept_value`: kept by the scopes it comes from, read again only when one of them moved.
"""

import datetime
import functools
import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import SafeString, mark_safe

from .page_cache import (
    _VALID_UNTIL,
    MEMBER,
    PAGE_TIMEOUT,
    SCOPES,
    SECTION_BASE,
    PageSections,
    _check_scopes,
    csrf_placeholder,
    serving_page,
)
from .page_versions import cache_call
from .stored_html import compressed, decompressed

T = TypeVar("T")


def lazy_value(make: Callable[[], Any]) -> Any:
    """A context value made only when a rendered section reads it (a list, an object...)."""
    return SimpleLazyObject(make)


def kept_value(
    name: str, scopes: tuple[str, ...], make: Callable[[], T], *, until: Callable[[T], datetime.datetime | None]
) -> T:
    """What `make()` returns, kept like a section by the versions of `scopes` until `until(value)`: data a page
    reads to order or key its sections (the plan list's events) is read again only when a write moved one of
    those scopes, not on every render of the page. One cache call; the value is stored with the page. Outside a
    page that may be stored (or with the cache down), just `make()`."""
    section_check(name, scopes)
    page = serving_page.get()
    [key] = [None] if page is None else _keys(page, origin="kept-value", name=name, scopes=scopes, chosen=[()])
    if page is None or key is None:
        return make()
    stored = cache_call("get", key)
    if stored is not None:
        return stored[0]
    value = make()
    moment = until(value)
    seconds = PAGE_TIMEOUT if moment is None else (moment - timezone.now()).total_seconds()
    if seconds >= 1:  # in a tuple: a value of None is kept too
        page.new.setdefault(min(int(seconds), PAGE_TIMEOUT), {})[key] = (value,)
    return value


def section_check(name: str, scopes: tuple[str, ...]) -> None:
    if not name:
        raise ValueError("a cached section needs a name")
    if not scopes:
        raise ValueError(f"cached section {name!r} declares no scopes: name what it shows")
    _check_scopes(scopes)


class SectionScopeUndeclared(LookupError):
    """A section shows a scope its page does not declare: the page's key would not move with it."""


def section_versions(page_versions: dict, scopes: tuple[str, ...]) -> tuple:
    """The versions a section's key holds, from those of its page: the member's own version for `member` and
    for a part of hers (any write of her other data renders its sections anew too), the part's, the shared
    scopes'. The page's key already holds the member."""
    missing = set(scopes) - page_versions.keys()
    if missing:
        raise SectionScopeUndeclared(f"the page does not declare {sorted(missing)}: add them to its @cached_page")
    mine = MEMBER in scopes or any(SCOPES[name].per_member for name in scopes)
    return (page_versions[MEMBER] if mine else "-", *(page_versions[name] for name in scopes if name != MEMBER))


# Per template, its sections without `by` (their keys are known before rendering): name -> scopes. Filled when
# the template is compiled.
_PLAIN_SECTIONS: dict[str, dict[str, tuple[str, ...]]] = {}


def section_declared(*, origin: str, name: str, scopes: tuple[str, ...], has_by: bool) -> None:
    if not has_by:
        _PLAIN_SECTIONS.setdefault(origin, {})[name] = scopes


def _section_key(base, page_versions, *, origin: str, name: str, scopes, chosen_by: tuple) -> tuple | None:
    key = (*base, origin, name, *section_versions(page_versions, scopes), chosen_by)
    return None if None in key else key


def _keys(page: PageSections, *, origin: str, name: str, scopes, chosen: list[tuple]) -> list[str | None]:
    """The cache keys of a section shown once per `by` in `chosen` (None: a version is missing)."""
    return _item_keys(
        _section_key(page.base, page.versions, origin=origin, name=name, scopes=scopes, chosen_by=()), chosen
    )


def _found(page: PageSections, *, origin: str, keys: list[str | None]) -> dict:
    """The stored sections under `keys`, asked for together with what is known to come: at the page's first
    section, all those its last render showed, and at a template's first, its sections without `by`. So a page
    rendered after a write asks for its sections in one call, however many templates and lists it has."""
    wanted: list[str | None] = list(keys)
    if origin not in page.asked:
        if not page.asked:
            for earlier_origin, name, scopes, chosen in page.earlier:
                if set(scopes) <= page.versions.keys():
                    wanted += _keys(page, origin=earlier_origin, name=name, scopes=scopes, chosen=list(chosen))
        page.asked.add(origin)
        for name, scopes in _PLAIN_SECTIONS.get(origin, {}).items():
            if set(scopes) <= page.versions.keys():
                wanted += _keys(page, origin=origin, name=name, scopes=scopes, chosen=[()])
    ask = [key for key in dict.fromkeys(wanted) if key is not None and key not in page.found]
    if ask:
        stored = cache_call("get_many", ask) or {}
        page.found.update({key: stored.get(key) for key in ask})  # None: asked for, not there
    return page.found


def _cacheable(context) -> tuple[PageSections, list] | None:
    """The page's sections and its list of moments, when the page being rendered may be stored."""
    page = context.get(SECTION_BASE)
    if page is None or context.get("csrf_token") != csrf_placeholder():
        return None
    moments: list[datetime.datetime] | None = context.get(_VALID_UNTIL)
    return None if moments is None else (page, moments)


def _by_checked(name: str, chosen_by: tuple) -> tuple:
    if not all(value is None or isinstance(value, (bool, int, str)) for value in chosen_by):
        raise TypeError(f"section {name!r}: `by` takes plain values (bool, int, str), not {chosen_by!r}")
    return chosen_by


def _stored_html(stored, moments: list) -> SafeString:
    packed, until = stored
    if until is not None:
        moments.append(until)
    return mark_safe(decompressed(packed).decode())  # noqa: S308 - our own rendered HTML


def _rendered(render: Callable[[], str], moments: list) -> tuple[SafeString, tuple | None]:
    """The section rendered, and what to store of it (None: it stops being true within a second)."""
    before = len(moments)
    html = render()
    until = min(moments[before:], default=None)
    seconds = PAGE_TIMEOUT if until is None else (until - timezone.now()).total_seconds()
    html = html if isinstance(html, SafeString) else mark_safe(html)  # noqa: S308 - rendered by the template
    if seconds < 1:
        return html, None
    return html, ((compressed(str(html).encode()), until), min(int(seconds), PAGE_TIMEOUT))


def _item_keys(key: tuple | None, chosen: list[tuple]) -> list[str | None]:
    """`cache_key` of `key` with each item's `by` values in its last place, the repr of the rest made once (a
    list of 20 rows repeated it 20 times): the same keys, character for character."""
    if key is None:
        return [None] * len(chosen)
    head = repr(key[:-1])[:-1] + ", "
    prefix = f"{key[0]}:"
    return [prefix + hashlib.sha256(f"{head}{chosen_by!r})".encode()).hexdigest() for chosen_by in chosen]


def section_render_each(
    context,
    *,
    origin: str,
    name: str,
    scopes: tuple[str, ...],
    items: list,
    by: Callable[[Any], tuple],
    render: Callable[[Any], str],
) -> str:
    """A list whose every item is a section of its own (`{% cached_each %}`): each item's HTML keyed by the
    section's scopes and `by(item)` (the item's own identity and version: its id, what it shows, its
    counts), all looked up in one cache call and the missing ones stored with the page (apps/core/page_cache.py,
    one call). A new item in the list renders that item, not the list."""
    cacheable = _cacheable(context)
    if cacheable is None:
        return "".join(str(render(item)) for item in items)
    page, moments = cacheable
    chosen = [_by_checked(name, by(item)) for item in items]
    page.shown.append((origin, name, scopes, tuple(chosen)))
    keys = _keys(page, origin=origin, name=name, scopes=scopes, chosen=chosen)
    stored = _found(page, origin=origin, keys=keys)
    parts: list[str] = []
    for item, cache_key in zip(items, keys, strict=True):
        if cache_key is not None and stored.get(cache_key) is not None:
            parts.append(_stored_html(stored[cache_key], moments))
            continue
        html, keep = _rendered(functools.partial(render, item), moments)
        parts.append(html)
        if cache_key is not None and keep is not None:
            page.new.setdefault(keep[1], {})[cache_key] = keep[0]
    return mark_safe("".join(parts))  # noqa: S308 - each part rendered by the template or stored from it


def section_render(
    context,
    *,
    origin: str,
    name: str,
    scopes: tuple[str, ...],
    render: Callable[[], str],
    by: Callable[[], tuple] = tuple,
) -> str:
    """The section's HTML from the cache when it was rendered under this key, else rendered and stored.
    `by` gives plain values that choose the section within its scopes (whether the member may start a
    challenge, a summary of her badges): cheaper to read than the section is to render."""
    cacheable = _cacheable(context)
    if cacheable is None:
        return render()
    page, moments = cacheable
    chosen_by = _by_checked(name, by())
    [cache_key] = _keys(page, origin=origin, name=name, scopes=scopes, chosen=[chosen_by])
    if cache_key is None:
        return render()
    page.shown.append((origin, name, scopes, (chosen_by,)))
    stored = _found(page, origin=origin, keys=[cache_key]).get(cache_key)
    if stored is not None:
        return _stored_html(stored, moments)
    html, keep = _rendered(render, moments)
    if keep is not None:
        page.new.setdefault(keep[1], {})[cache_key] = keep[0]
    return html
