"""A first visit paints after one round trip, not two.

A browser that has never been here has none of the site's stylesheets, and a stylesheet in the head holds the
first paint until it arrives: on slow 4G one more round trip (0.56 s) after the HTML. So a page sent to a
browser without the `koud_styles` cookie carries its stylesheets in `<style>` elements instead, each allowed by
its SHA-256 in this response's Content-Security-Policy (no inline style is allowed otherwise), and asks the
browser to fetch the files themselves when it is idle (`rel="prefetch"`), for the pages after it. The cookie,
named after the current stylesheets, then says the files are in the browser's cache; a release with new
stylesheets inlines them once more.
"""

import base64
import functools
import hashlib
import os
import re
from dataclasses import dataclass
from urllib.parse import urljoin

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.templatetags.static import static
from django.utils.cache import patch_vary_headers

STYLES_COOKIE = "koud_styles"
STYLES_COOKIE_AGE = 60 * 60 * 24 * 365
# The stylesheet links base.html and django-vite write in the head: the site's own files only.
STYLESHEET_LINK = re.compile(r'<link\s+rel="stylesheet"\s+href="(?P<href>/static/[^"?#]+\.css)"\s*/?>')
# A CSS comment, or a quoted string (kept as it is: it may hold "/*").
COMMENT_OR_STRING = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|/\*.*?\*/\n?""", re.DOTALL)
# What a stylesheet fetches (an image, an @import), by an address relative to the stylesheet's own.
REFERENCE = re.compile(r"""(?P<open>url\(\s*(?P<quote>['"]?)|@import\s+(?P<bare>['"]))(?P<address>[^'"()\s]+)""")


@dataclass(frozen=True)
class Stylesheet:
    text: str
    source: str  # the CSP source that allows exactly this text inline


def _stylesheet(href: str) -> Stylesheet | None:
    """A stylesheet of this release by its URL; None when it cannot be read here (then its link stays)."""
    name = href.removeprefix(settings.STATIC_URL)
    source = finders.find(name)  # the file itself, as `make run` and the tests serve it: read again when edited
    if isinstance(source, str):
        try:
            return _read(href, source, os.stat(source).st_mtime_ns)
        except OSError:
            return None
    return _read(href, None, None)  # a collected file under its hashed name, as production serves it


@functools.cache
def _read(href: str, path: str | None, _changed: int | None) -> Stylesheet | None:
    try:
        if path is not None:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        else:
            with staticfiles_storage.open(href.removeprefix(settings.STATIC_URL)) as file:
                text = file.read().decode()
    except (OSError, ValueError):
        return None
    text = COMMENT_OR_STRING.sub(lambda found: found[1] or "", text)  # a quarter of app.css is comments
    text = _anchored(text, href)
    if "</style" in text.lower():
        return None
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    return Stylesheet(text=text, source=f"'sha256-{digest}'")


def _anchored(text: str, href: str) -> str:
    """Relative addresses made absolute: inside the page they would be read against the page's address."""

    def absolute(reference: re.Match) -> str:
        address = reference["address"]
        if address.startswith(("/", "#", "data:")) or "://" in address:
            return reference[0]
        return reference["open"] + urljoin(href, address)

    return REFERENCE.sub(absolute, text)


@functools.cache
def styles_release() -> str:
    """Names the site's stylesheets: changes when app.css does (its URL carries its content's hash)."""
    return hashlib.sha256(static("css/app.css").encode()).hexdigest()[:12]


def _inlined(html: str) -> tuple[str, list[str]]:
    """The page with its head's stylesheets inline, and the CSP sources that allow them."""
    head, closing, rest = html.partition("</head>")
    if not closing:
        return html, []
    sources, hrefs = [], []

    def inline(link: re.Match) -> str:
        stylesheet = _stylesheet(link["href"])
        if stylesheet is None:
            return link[0]
        sources.append(stylesheet.source)
        hrefs.append(link["href"])
        return f"<style>{stylesheet.text}</style>"

    head = STYLESHEET_LINK.sub(inline, head)
    if not hrefs:
        return html, []
    prefetches = "".join(f'<link rel="prefetch" href="{href}">' for href in hrefs)
    body, closing_body, end = rest.rpartition("</body>")
    rest = f"{body}{prefetches}{closing_body}{end}" if closing_body else rest + prefetches
    return head + closing + rest, sources


class FirstVisitStylesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            not settings.INLINE_FIRST_VISIT_STYLES
            or settings.DJANGO_VITE["default"]["dev_mode"]  # Vite's dev server injects styles: 'unsafe-inline'
            or response.status_code != 200
            or response.streaming
            or not response.get("Content-Type", "").startswith("text/html")
        ):
            return response
        patch_vary_headers(response, ("Cookie",))
        if request.COOKIES.get(STYLES_COOKIE) == styles_release():
            return response
        html, sources = _inlined(response.content.decode(response.charset))
        if not sources:
            return response
        response.content = html.encode(response.charset)
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        update = getattr(response, "_csp_update", None) or {}
        response._csp_update = {**update, "style-src": [*update.get("style-src", []), *sources]}
        response.set_cookie(
            STYLES_COOKIE,
            styles_release(),
            max_age=STYLES_COOKIE_AGE,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
        return response
