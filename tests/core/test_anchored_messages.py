"""Issue 34 §6: every answer where the member looks, after an anchor jump too. A form that redirects to a page
section (#anchor) has its message shown inside that section, not at the top of the page 900 px above.

One walk over the code: every anchor a redirect in apps/ names (a literal "/page#anchor" or "#anchor", or an
f-string "#{NAME}" with NAME a constant of its module) must be in ANCHORED below, with the page(s) it lands on;
for each, a message tagged with it (as apps/core/anchored_messages.py's middleware tags it) is rendered inside the
element with that id, and not at the top. Then the middleware itself, through real forms."""

import ast
import datetime
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest
from django.utils import timezone

from apps.core.anchored_messages import anchor_tag
from tests.factories import (
    ClubChallengeFactory,
    ClubSharingFactory,
    DipBuddyFactory,
    DipFactory,
    EventFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

APPS = Path(__file__).resolve().parents[2] / "apps"
ANCHOR = re.compile(r"^(?:/[^\s#]*)?#([a-z][a-z0-9-]*)$")


def _setup_clubchallenge(member):
    ClubChallengeFactory(name="Decemberduik")
    return "/dashboard"


def _setup_club_page_challenge(member):
    ClubChallengeFactory(name="Decemberduik")
    return "/club"


def _setup_buddies(member):
    DipBuddyFactory(buddy=member)  # the section shows while there is something to answer
    return "/dashboard"


def _setup_admin_event(member):
    return f"/admin/events/{EventFactory().pk}"


def _setup_series_date(member):
    from apps.events.services import EventDetails, event_series_create

    start = timezone.now() + datetime.timedelta(days=2)
    details = EventDetails(title="Zondagduik", starts_at=start, location="Scheveningen", max_participants=None)
    (first, _second) = event_series_create(
        details=details, repeat_until=timezone.localdate(start) + datetime.timedelta(weeks=1)
    )
    return f"/events/{first.pk}"


def _setup_club_item(member):
    kees = UserFactory(full_name="Kees Koud")
    ClubSharingFactory(user=kees)
    dip = DipFactory(user=kees, user_challenge=UserChallengeFactory(user=kees))
    return "/club", f"item-dip-{dip.pk}"


# anchor -> the pages it lands on: a path, or a setup(member) that makes the section show and returns the path
# (or the path and the anchor, for an anchor made per item). "admin" runs the page as an admin.
ANCHORED = {
    "eerste-plons": ["/dashboard"],
    "clubchallenges": [_setup_clubchallenge, _setup_club_page_challenge],
    "series": [_setup_series_date],
    "samen": ["/dashboard", "/account"],
    "buddies": [_setup_buddies],
    "club-delen": ["/account"],
    "agenda": ["/account"],
    "herinneringen": ["/account"],
    "meldingen": ["/account"],
    "postadres": ["/account"],
    "export": ["/account"],
    "tweede-factor": ["/account"],
    "aanwezig": [("admin", _setup_admin_event)],
    "gasten": [("admin", _setup_admin_event)],
}
# Anchors made per item at run time (f"#{anchor}" with a variable): which module, and how to check one.
DYNAMIC = {"club/views.py": _setup_club_item}


def _module_constants(tree: ast.Module) -> dict[str, str]:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def anchors_in_code() -> tuple[set[str], set[str]]:
    """The anchors the redirecting modules of apps/ name, and the modules that make one at run time."""
    anchors, dynamic = set(), set()
    for path in sorted(APPS.rglob("*.py")):
        source = path.read_text()
        if "redirect(" not in source:
            continue
        tree = ast.parse(source)
        constants_of = _module_constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                match = ANCHOR.match(node.value)
                if match:
                    anchors.add(match.group(1))
            elif isinstance(node, ast.JoinedStr):
                parts = node.values
                for before, after in zip(parts, parts[1:], strict=False):
                    if not (isinstance(before, ast.Constant) and str(before.value).endswith("#")):
                        continue
                    if isinstance(after, ast.FormattedValue) and isinstance(after.value, ast.Name):
                        name = after.value.id
                        if name in constants_of:
                            anchors.add(constants_of[name].lstrip("#"))
                        else:
                            dynamic.add(str(path.relative_to(APPS)))
    return anchors, dynamic


def test_every_anchor_a_redirect_names_is_declared_here():
    anchors, dynamic = anchors_in_code()
    assert anchors, "the walk found no anchored redirect: it reads the code wrongly"
    assert anchors - set(ANCHORED) == set(), "a redirect to a new #anchor: add it to ANCHORED"
    assert dynamic == set(DYNAMIC), dynamic


class _Element(HTMLParser):
    """The text inside the element with the id, and the text of the page's top messages."""

    VOID = {"input", "img", "br", "meta", "link", "hr", "source", "area", "col", "embed", "wbr", "track"}

    def __init__(self, anchor: str):
        super().__init__()
        self.anchor, self.depth, self.inside, self.top_depth = anchor, 0, "", 0
        self.text, self.top = [], []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        attributes = dict(attrs)
        if self.depth:
            self.depth += 1
        elif attributes.get("id") == self.anchor:
            self.depth = 1
        if self.top_depth:
            self.top_depth += 1
        elif attributes.get("class") == "messages":
            self.top_depth = 1

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if self.depth:
            self.depth -= 1
        if self.top_depth:
            self.top_depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.text.append(data)
        if self.top_depth:
            self.top.append(data)


def _with_message(client, text: str, anchor: str) -> None:
    storage = CookieStorage(HttpRequest())
    encoded = storage._encode([Message(constants.SUCCESS, text, extra_tags=anchor_tag(anchor))])
    client.cookies[storage.cookie_name] = encoded


def _page_id(page) -> str:
    """A page's name in a test id, the same in every process (pytest-xdist compares them): no object addresses."""
    if isinstance(page, tuple):
        role, setup = page
        return f"{role}:{_page_id(setup)}"
    return getattr(page, "__name__", page)


def _cases():
    for anchor, pages in ANCHORED.items():
        for page in pages:
            yield pytest.param(anchor, page, id=f"{anchor}@{_page_id(page)}")
    for module, setup in DYNAMIC.items():
        yield pytest.param(None, setup, id=f"dynamic@{module}")


@pytest.mark.parametrize(("anchor", "page"), list(_cases()))
def test_the_answer_shows_inside_the_section_it_jumped_to(client, member, admin_user, anchor, page):
    who = member
    if isinstance(page, tuple):
        _role, page = page
        who = admin_user
    path = page(who) if callable(page) else page
    if isinstance(path, tuple):
        path, anchor = path
    client.force_login(who)
    text = f"Gelukt bij {anchor}"
    _with_message(client, text, anchor)
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="{anchor}"' in html, f"{path} has no #{anchor}"
    found = _Element(anchor)
    found.feed(html)
    assert text in "".join(found.text), f"the answer is not inside #{anchor} on {path}"
    assert text not in "".join(found.top), "and not at the top as well"
    assert html.count(text) == 1


def test_a_message_whose_section_is_not_on_the_page_shows_at_the_top(member_client):
    _with_message(member_client, "Nergens anders", "bestaat-niet")
    found = _Element("bestaat-niet")
    found.feed(member_client.get("/dashboard").content.decode())
    assert "Nergens anders" in "".join(found.top)


# --- the middleware, through real forms -------------------------------------------------------------------


def _inside(html: str, anchor: str) -> str:
    found = _Element(anchor)
    found.feed(html)
    return "".join(found.text)


def test_doe_mee_answers_in_the_club_challenges(member_client):
    challenge = ClubChallengeFactory(name="Decemberduik")
    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk})
    assert response.status_code == 302, response.status_code
    assert response["Location"] == "/dashboard#clubchallenges"
    html = member_client.get("/dashboard").content.decode()
    assert "Decemberduik" in _inside(html, "clubchallenges") and "Je doet mee" in _inside(html, "clubchallenges")


def test_maak_mijn_agenda_link_answers_in_the_agenda_section(member_client):
    response = member_client.post("/agenda/vernieuwen", {"back": "account"}, follow=True)
    assert response.redirect_chain[-1][0] == "/account#agenda"
    assert "Je agenda-link staat klaar." in _inside(response.content.decode(), "agenda")


def test_a_message_with_a_tag_of_its_own_keeps_it(member_client, member):
    """The events' answers have their place (events-section): the middleware leaves a tagged message alone."""
    event = EventFactory()
    response = member_client.post(f"/events/{event.pk}/aanmelden", {"back": "dashboard"}, follow=True)
    assert "Je bent aangemeld voor dit event!" in _inside(response.content.decode(), "samen")
