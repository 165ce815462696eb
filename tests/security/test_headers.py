"""Security headers on every answer, no inline script or style in any page, and the production settings.

The pages come from the same URL walk as the authorization matrix, so a new page is checked without
being listed here. `manage.py check --deploy --fail-level WARNING` with the production settings is
run by tests/config/test_settings.py::test_check_deploy_is_clean_with_production_settings; this
module checks the values behind it and what the middleware actually sends over HTTPS.
"""

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path

from config.settings.security import content_security_policy

from .conftest import World
from .test_authorization_matrix import PATTERNS, decision_for, url_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("first_visit_styles")]

ROOT = Path(__file__).resolve().parents[2]
ONE_YEAR = 60 * 60 * 24 * 365


# --- the headers -------------------------------------------------------------------------------------


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives


def assert_security_headers(response, what: str) -> None:
    assert "Content-Security-Policy" in response, f"{what}: no Content-Security-Policy"
    csp = csp_directives(response["Content-Security-Policy"])
    scripts = csp.get("script-src", csp.get("default-src"))
    assert scripts, f"{what}: no script-src or default-src"
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts, f"{what}: {scripts}"
    assert "*" not in scripts and "data:" not in scripts, f"{what}: scripts from anywhere: {scripts}"
    assert "'unsafe-inline'" not in csp.get("style-src", csp["default-src"]), f"{what}: inline styles allowed"
    assert csp.get("object-src") == ["'none'"], what
    assert csp.get("frame-ancestors") == ["'none'"], what
    assert csp.get("base-uri") == ["'self'"], what
    assert response.get("Referrer-Policy") in (
        "no-referrer",
        "same-origin",
        "strict-origin",
        "strict-origin-when-cross-origin",
    ), f"{what}: Referrer-Policy {response.get('Referrer-Policy')!r}"
    assert response.get("X-Content-Type-Options") == "nosniff", what
    assert response.get("X-Frame-Options") == "DENY", what
    assert response.get("Permissions-Policy"), f"{what}: no Permissions-Policy"
    assert "geolocation=()" in response["Permissions-Policy"], what


# --- the HTML ----------------------------------------------------------------------------------------


class InlineCodeFinder(HTMLParser):
    """Collects what a strict CSP would block or what smuggles code into a page. A `<style>` element is allowed
    only when the response's policy names its exact text by hash (a first visit's, config/first_visit_styles.py)."""

    def __init__(self, allowed_styles: frozenset[str] = frozenset()):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.allowed_styles = allowed_styles
        self._style: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes and attributes.get("type") != "application/json":
            self.problems.append(f"inline <script {attrs}>")
        if tag == "style":
            self._style = []
        for name, value in attrs:
            if name == "style":
                self.problems.append(f'style="{value}" on <{tag}>')
            if name.startswith("on"):
                self.problems.append(f'event handler {name}="{value}" on <{tag}>')
            if name in ("href", "src", "action", "formaction") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.problems.append(f"javascript: URL in <{tag} {name}>")

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        if self._style is not None:
            self._style.append(data)

    def handle_endtag(self, tag):
        if tag == "style" and self._style is not None:
            digest = base64.b64encode(hashlib.sha256("".join(self._style).encode()).digest()).decode()
            if f"'sha256-{digest}'" not in self.allowed_styles:
                self.problems.append("inline <style> element that the policy does not name")
            self._style = None

    def close(self):
        super().close()
        if self._style is not None:
            self.problems.append("inline <style> element that is never closed")


def inline_code(html: str, response: HttpResponse | None = None) -> list[str]:
    policy = csp_directives(response.get("Content-Security-Policy", "")) if response is not None else {}
    finder = InlineCodeFinder(frozenset(policy.get("style-src", [])))
    finder.feed(html)
    finder.close()
    return finder.problems


def test_the_finder_finds_what_it_looks_for():
    html = (
        '<script>alert(1)</script><script src="/static/x.js"></script>'
        '<script type="application/json" id="d">{"a": 1}</script>'
        '<p style="color:red">x</p><img src=x onerror="alert(1)"><a href="JavaScript:alert(1)">x</a><style>p{}</style>'
    )
    problems = inline_code(html)
    assert len(problems) == 5, problems
    allowed = HttpResponse()
    allowed["Content-Security-Policy"] = (
        "default-src 'self'; style-src 'self' 'sha256-gG2yISYereRMiG2lMXrbiUgi0Ubw9p7QCeWcroOvy9Y='"
    )
    assert inline_code("<style>p{}</style><style>a{}</style>", allowed) == [
        "inline <style> element that the policy does not name"
    ]
    assert inline_code("<style>p{}", allowed) == ["inline <style> element that is never closed"]


# --- every page --------------------------------------------------------------------------------------

# Who may open each kind of page: that role's answer is the real page; anonymous gets the refusal.
READER = {
    "public": "member",
    "guest": "anonymous",
    "redirect": "anonymous",
    "post_any": "member",
    "member": "member",
    "member_post": "member",
    "member_json": "member",
    "owner_or_admin": "member",
    "admin": "admin",
    "admin_json": "admin",
    "django_admin": "admin",
}

PAGES = [
    pytest.param(pattern, role, id=f"{pattern.key}-{role}")
    for pattern in PATTERNS
    if decision_for(pattern) in READER
    for role in sorted({"anonymous", READER[decision_for(pattern)]})
]


@pytest.mark.parametrize(("pattern", "role"), PAGES)
def test_every_answer_has_the_security_headers_and_no_inline_code(world: World, pattern, role):
    url = url_for(pattern, world)
    response = world.client(role).get(url)
    what = f"{role} GET {url} ({response.status_code})"
    assert response.status_code != 500, what
    assert_security_headers(response, what)
    if response["Content-Type"].startswith("text/html"):
        html = b"".join(response).decode() if response.streaming else response.content.decode()
        assert inline_code(html, response) == [], what


def test_the_pages_checked_include_every_kind_of_html_page(world):
    """The walk above is not vacuous: the main pages answer 200 with HTML for the role that reads them."""
    seen = set()
    for pattern in PATTERNS:
        decision = decision_for(pattern)
        if decision not in ("public", "guest", "member", "admin", "django_admin"):
            continue
        response = world.client(READER[decision]).get(url_for(pattern, world))
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            seen.add(pattern.key)
    assert {"landing", "auth", "dashboard", "challenge", "adminpanel", "admin:index"} <= seen
    assert {"account_reset_password", "admin:accounts_user_change", "admin:events_event_add"} <= seen


def _extra_pages(world: World):
    """Pages that only show in a certain state: a form with errors, the other tab, limits, refusals."""
    anonymous = world.client("anonymous")
    yield "auth registreren", anonymous.get("/auth?tab=registreren&invite=WELKOM22")
    yield "auth wrong password", anonymous.post("/auth", {"form": "inloggen", "login": "x@example.nl", "password": "x"})
    yield "auth sign-up errors", anonymous.post("/auth", {"form": "registreren", "code": "", "email": "geen-adres"})
    yield "password reset errors", anonymous.post("/auth/wachtwoord-vergeten", {"email": "geen-adres"})
    yield "404", anonymous.get("/bestaat/niet")
    yield "404 signed in", world.client("member").get("/bestaat/niet")
    yield "admin 404", world.client("admin").get("/django-admin/bestaat-niet/")
    csrf = Client(enforce_csrf_checks=True)
    yield "csrf refusal", csrf.post("/auth", {"form": "inloggen", "login": "a@example.nl", "password": "x"})
    # (The dip endpoint answers an anonymous visitor 401 before its own CSRF check: it reads no body before it
    # knows the dip can count. tests/challenges/test_views.py checks its CSRF refusal.)
    yield "csrf refusal json", csrf.post("/admin/api/uitnodigingen/nieuw", HTTP_ACCEPT="application/json")
    yield "json 401", anonymous.get("/admin/api/gebruikers")
    yield "photo", world.client("member").get(f"/foto/{world.member_photo_dip.pk}")
    yield "csv", world.client("admin").get("/admin/nieuwsbrief.csv")
    yield "ics", world.client("member").get(f"/events/{world.event.pk}.ics")
    yield "admin dashboard", world.client("admin").get("/dashboard")
    with override_settings(ACCOUNT_RATE_LIMITS={"login": "1/m/ip"}):
        limited = Client()
        limited.post("/auth", {"form": "inloggen", "login": "a@example.nl", "password": "x"})
        yield "auth 429", limited.post("/auth", {"form": "inloggen", "login": "a@example.nl", "password": "x"})
    with override_settings(ACCOUNT_RATE_LIMITS={"reset_password": "1/m/ip"}):
        limited = Client()
        limited.post("/auth/wachtwoord-vergeten", {"email": "a@example.nl"})
        yield "reset 429", limited.post("/auth/wachtwoord-vergeten", {"email": "a@example.nl"})


def test_pages_in_special_states_have_the_headers_and_no_inline_code(world):
    statuses = {}
    for what, response in _extra_pages(world):
        statuses[what] = response.status_code
        assert response.status_code != 500, what
        assert_security_headers(response, what)
        if response["Content-Type"].startswith("text/html"):
            html = b"".join(response).decode() if response.streaming else response.content.decode()
            assert inline_code(html, response) == [], what
    assert statuses["404"] == 404 and statuses["csrf refusal"] == 403 and statuses["csrf refusal json"] == 403
    assert statuses["auth 429"] == 429 and statuses["reset 429"] == 429


def test_static_files_cannot_be_sniffed_or_framed(client):
    """WhiteNoise answers before XFrameOptionsMiddleware runs, so static files carry no X-Frame-Options; the
    CSP's frame-ancestors 'none' (which browsers apply instead of it) and nosniff are there."""
    for url in ("/static/css/app.css", "/static/favicon.svg"):
        response = client.get(url)
        assert response.status_code == 200
        assert response["X-Content-Type-Options"] == "nosniff"
        assert csp_directives(response["Content-Security-Policy"])["frame-ancestors"] == ["'none'"]
        assert csp_directives(response["Content-Security-Policy"])["script-src"] == ["'self'"]


# The 500 page: a URLconf of our own whose only view fails, with the project's handler500.
def _boom(request):
    raise RuntimeError("deliberate failure for the 500 page test")


def _ok(request):
    return HttpResponse("ok")


urlpatterns = [path("kapot", _boom), path("ok", _ok)]
handler500 = "config.views.server_error"


@override_settings(ROOT_URLCONF=__name__)
def test_the_500_page_has_the_headers_and_no_inline_code(db):
    client = Client(raise_request_exception=False)
    response = client.get("/kapot")
    assert response.status_code == 500
    assert "Er ging iets mis" in response.content.decode()
    assert_security_headers(response, "500 page")
    assert inline_code(response.content.decode()) == []


@override_settings(ROOT_URLCONF=__name__)
def test_a_plain_view_without_templates_gets_the_headers_too(db):
    assert_security_headers(Client().get("/ok"), "plain HttpResponse")


# --- production settings -----------------------------------------------------------------------------

PRODUCTION_PROBE = r"""
import base64
import hashlib
import json
import django
from django.conf import settings
django.setup()
from django.test import Client, override_settings

out = {name: getattr(settings, name) for name in (
    "DEBUG", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SESSION_COOKIE_HTTPONLY", "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_SSL_REDIRECT", "SECURE_CONTENT_TYPE_NOSNIFF", "X_FRAME_OPTIONS",
    "SECURE_REFERRER_POLICY", "SESSION_COOKIE_SAMESITE", "CSRF_COOKIE_SAMESITE")}
out["SECURE_PROXY_SSL_HEADER"] = list(settings.SECURE_PROXY_SSL_HEADER or [])
out["VITE_DEV_MODE"] = settings.DJANGO_VITE["default"]["dev_mode"]

client = Client(HTTP_HOST="localhost")
plain = client.get("/dashboard")
out["http"] = [plain.status_code, plain.get("Location")]
secure = client.get("/dashboard", secure=True)
out["https"] = [secure.status_code, secure.get("Location"), secure.get("Strict-Transport-Security"),
                secure.get("Content-Security-Policy")]
# The sign-in form sets the CSRF cookie; the hashed static files need collectstatic, which this probe skips.
storages = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
with override_settings(STORAGES=storages):
    page = client.get("/auth", secure=True)
cookie = page.cookies.get(settings.CSRF_COOKIE_NAME)
out["csrf_cookie"] = {"secure": bool(cookie and cookie["secure"]), "samesite": cookie and cookie["samesite"]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def production():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "VITE_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.production", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50)})
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_cookies_are_secure_and_httponly(production):
    assert production["DEBUG"] is False
    assert production["SESSION_COOKIE_SECURE"] is True
    assert production["CSRF_COOKIE_SECURE"] is True
    assert production["SESSION_COOKIE_HTTPONLY"] is True
    assert production["SESSION_COOKIE_SAMESITE"] in ("Lax", "Strict")
    assert production["CSRF_COOKIE_SAMESITE"] in ("Lax", "Strict")
    assert production["csrf_cookie"] == {"secure": True, "samesite": "Lax"}


def test_production_forces_https_with_hsts_for_at_least_a_year(production):
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SECURE_HSTS_SECONDS"] >= ONE_YEAR
    assert production["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert production["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    status, location = production["http"]
    assert (status, location) == (301, "https://localhost/dashboard")
    status, location, hsts, csp = production["https"]
    assert (status, location) == (302, "/auth?next=/dashboard")
    assert hsts.startswith(f"max-age={production['SECURE_HSTS_SECONDS']}") and "includeSubDomains" in hsts
    assert "'unsafe-inline'" not in csp


def test_production_never_runs_the_vite_dev_server_policy(production):
    """Only the Vite dev server's policy allows inline styles; production uses the built files."""
    assert production["VITE_DEV_MODE"] is False
    assert production["X_FRAME_OPTIONS"] == "DENY"
    assert production["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert production["SECURE_REFERRER_POLICY"] == "strict-origin-when-cross-origin"


# --- the policy itself (django-csp) -------------------------------------------------------------------


def test_the_policy_sent_is_exactly_the_strict_one(client):
    first_visit = csp_directives(client.get("/")["Content-Security-Policy"])
    # A first visit's stylesheets come inline (config/first_visit_styles.py), each named by its hash only.
    inline = first_visit.pop("style-src")
    assert inline[0] == "'self'" and len(inline) == 3
    assert all(re.fullmatch(r"'sha256-[A-Za-z0-9+/]{43}='", source) for source in inline[1:])
    csp = csp_directives(client.get("/")["Content-Security-Policy"])  # the cookie says it has the files
    assert csp == first_visit | {"style-src": ["'self'"]}
    assert csp == {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }


def test_only_the_vite_dev_server_policy_loosens_styles_and_photos_add_their_origin():
    dev = content_security_policy(vite_dev_origin="http://localhost:5173", photo_origin="https://s3.example")
    assert dev["script-src"] == ["'self'", "http://localhost:5173"]
    assert dev["style-src"] == ["'self'", "http://localhost:5173", "'unsafe-inline'"]
    assert dev["connect-src"] == ["'self'", "http://localhost:5173", "ws://localhost:5173"]
    assert dev["img-src"][-1] == "https://s3.example"
    assert "'unsafe-inline'" not in sum(content_security_policy().values(), [])
