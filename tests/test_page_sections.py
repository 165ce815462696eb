"""Cached sections (apps/core/page_sections.py), walked as declarations and checked on the rendered paths:
- every `{% cached_section %}` in the templates names known scopes, is unique in its template and sits in the
  template of a cached page that declares every scope it shows;
- the key holds the member (two members with equal versions, covered for every page by
  tests/test_page_cache_declared.py), a stored section holds no CSRF token and no one-time message;
- after the write that typically precedes a page, the page is rendered with only the sections that write
  changed: a fixed number of queries, the same with a small and a large club (the query budgets of issue 37).
Scenario freshness after every declared write is tests/test_page_cache_declared.py's walk (sections included).
"""

import datetime
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import get_resolver
from django.utils import timezone

from apps.challenges.models import Challenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.core.page_cache import SCOPES, member_parts
from apps.events.services import event_sign_up
from apps.together.services import meetup_propose
from tests.factories import EventFactory, UserFactory
from tests.test_page_cache_declared import _walk

pytestmark = pytest.mark.django_db

SECTION = re.compile(r"{%\s*cached_(?:section|each)\s+(?P<args>[^%]*?)\s*%}")
TEMPLATES = Path(settings.BASE_DIR) / "templates"


def declared_sections() -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Per template (its name under templates/): each section's name and scopes, as written."""
    found: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for path in sorted(TEMPLATES.rglob("*.html")):
        for match in SECTION.finditer(path.read_text()):
            words = match["args"].split()
            words = words[: words.index("by")] if "by" in words else words  # `by` values: not scopes
            words = words[: words.index("for")] if "for" in words else words  # cached_each's loop: not scopes
            name, *scopes = (word.strip("\"'") for word in words)
            found.setdefault(str(path.relative_to(TEMPLATES)), []).append((name, tuple(scopes)))
    return found


def test_every_section_declares_known_scopes_in_a_cached_page_that_shows_them():
    sections = declared_sections()
    assert {"challenges/dashboard.html", "accounts/account.html", "club/club.html"} <= sections.keys()
    pages = {view.cached_page.template: view.cached_page.scopes for _path, view in _walk(get_resolver().url_patterns)}
    for template, declared in sections.items():
        names = [name for name, _scopes in declared]
        assert len(names) == len(set(names)), f"{template}: two sections with one name"
        assert template in pages, f"{template}: sections belong in the template of a cached page"
        for name, scopes in declared:
            assert scopes, f"{template} {name}: a section names what it shows"
            assert set(scopes) <= SCOPES.keys(), f"{template} {name}: unknown scopes"
            # Every member page holds the member and all parts of her data; its shared scopes are declared.
            shown = {*pages[template], *member_parts()}
            assert set(scopes) <= shown, f"{template} {name}: {set(scopes) - shown} not declared by the page"


def _member_with_card(dips: int = 1):
    member = UserFactory(full_name="Marit Zwemmer")
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    challenge_start(user=member, challenge_id=waterdieren.pk)
    start = timezone.now() - datetime.timedelta(days=dips + 1)
    for day in range(dips):
        dip_register(user=member, now=start + datetime.timedelta(days=day))
    return member


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_dip_renders_only_the_sections_of_her_dips():
    member = _member_with_card(dips=3)
    EventFactory(title="Nieuwjaarsduik")
    client = _client(member)
    assert client.get("/dashboard").status_code == 200  # the page and its sections in the cache
    dip_register(user=member)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/dashboard").content.decode()
    assert "4 van 100 plonsen gedaan" in page  # her new count: the section of her dips is new
    assert "Nieuwjaarsduik" in page  # the events' section, from the cache...
    assert not [query for query in queries if "events_event" in query["sql"]]  # ...without reading the events


def test_a_stored_section_holds_neither_the_csrf_token_nor_a_message():
    member = _member_with_card()
    event = EventFactory(title="Nieuwjaarsduik", max_participants=5)
    first, second = _client(member), _client(member)  # two sessions: two CSRF tokens
    response = first.post(f"/events/{event.pk}/aanmelden", {"back": "dashboard"}, follow=True)
    message_page = response.content.decode()
    assert "aangemeld" in message_page.lower()  # the answer stands in the events' section...
    dip_register(user=member)  # the page is rendered again; the events' section may come from the cache
    again = first.get("/dashboard").content.decode()
    other = second.get("/dashboard").content.decode()
    for page, client in ((again, first), (other, second)):
        token = client.cookies[settings.CSRF_COOKIE_NAME].value if settings.CSRF_COOKIE_NAME in client.cookies else ""
        forms = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert forms and "csrf-" not in page, "every form has a real token, none the placeholder"
        assert token == "" or all(len(value) == 64 for value in forms)
    first_tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', again))
    second_tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', other))
    assert first_tokens.isdisjoint(second_tokens), "a section came with another session's token"
    assert _message_count(message_page) > _message_count(again) == 0, "...and only once, never from a section"


def _message_count(page: str) -> int:
    return page.count('class="message ')


# --- query budgets of the rendered paths: the visit right after the write that typically precedes it -------

SMALL, LARGE = 1, 40


def _club(size: int):
    """The bench member with `size` dips, `size` clubmates who each dip and share, `size` events."""
    member = _member_with_card(dips=size)
    for number in range(size):
        mate = _member_with_card(dips=1)
        mate.full_name = f"Clubgenoot {number}"
        mate.save(update_fields=["full_name"])
    for number in range(size):
        EventFactory(title=f"Event {number}", max_participants=50)
    return member


def _own_dip(member):
    dip_register(user=member)


def _other_dip(member):
    dip_register(user=_member_with_card(dips=0))


def _sign_up(member):
    from apps.events.models import Event

    event = Event.objects.exclude(participants__user=member).order_by("event_date").first()
    event_sign_up(user=member, event_id=event.pk)


def _afspraak(member):
    meetup_propose(user=UserFactory(), starts_at=timezone.now() + datetime.timedelta(days=1), place="Steiger")


# (path, the write before it, the most queries of the visit after it: the same at both sizes). /account keeps
# its one section through her dip (3: session, user, the admin-role check); /dashboard keeps five of nine sections
# and reads the rest with prepared queries (7, was 9: session, user, the admin check, her cards, the badge summary,
# the club challenges, her club badges); /challenge keeps samen plonsen's part of the card (9, was 10);
# /statistieken reads her figures and coldest dip in one query, her days and the two sides of "Samen met" (7, was
# 8); /club reads its feed's first page (one query for all its sources, was one per source) and the Brrr!s, and
# keeps its sharing and club challenges sections (5, was 13).
RENDERED_PATHS = [
    ("/dashboard", _own_dip, 7),
    ("/challenge", _own_dip, 9),
    ("/statistieken", _own_dip, 7),
    ("/account", _own_dip, 3),
    ("/club", _other_dip, 5),
    # The plan list (events and afspraken, /events leads there): after a sign-up its rows but one and its header come
    # from the cache; after an afspraak its events too (kept by their scopes: 3 queries fewer), and the form's spots
    # are read again (one query: hers and the afspraken's).
    ("/samen", _sign_up, 7),
    ("/samen", _afspraak, 5),
]


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize(
    ("path", "write", "budget"), RENDERED_PATHS, ids=[f"{path}-{write.__name__}" for path, write, _b in RENDERED_PATHS]
)
def test_the_page_after_its_write_costs_a_fixed_number_of_queries(path, write, budget, size):
    member = _club(size)
    client = _client(member)
    caches["pages"].clear()
    assert client.get(path).status_code == 200  # cached, sections too
    write(member)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    assert len(queries) <= budget, f"{path} after its write: {len(queries)} queries at size {size}"
