"""config/first_visit_styles.py: a browser without the site's stylesheets gets them inline, allowed by their hashes."""

import base64
import hashlib
import os
import re

import pytest

from config.first_visit_styles import COMMENT_OR_STRING, STYLES_COOKIE, _anchored, _stylesheet, styles_release
from tests.factories import UserFactory
from tests.security.test_headers import csp_directives

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("first_visit_styles")]


def _style_src(response) -> list[str]:
    return csp_directives(response["Content-Security-Policy"])["style-src"]


def _head(response) -> str:
    return response.content.decode().partition("</head>")[0]


def test_a_first_visit_gets_the_stylesheets_inline_each_allowed_by_its_hash(client):
    client.force_login(UserFactory())
    response = client.get("/dashboard")
    styles = re.findall(r"<style>(.*?)</style>", _head(response), re.DOTALL)
    assert len(styles) == 2  # app.css and the dashboard's events.css
    css = styles[0]
    assert ".site-header {\n  position: sticky;" in css and "--c-primary: #0b63a5;" in css
    assert "/*" not in css  # its comments stay in the file
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert 'rel="stylesheet"' not in _head(response)
    assert f"'sha256-{digest}'" in _style_src(response)
    assert "'unsafe-inline'" not in _style_src(response)
    # The files themselves come when the browser is idle, for the next pages.
    assert '<link rel="prefetch" href="/static/css/app.css">' in response.content.decode().partition("</main>")[2]
    assert response.cookies[STYLES_COOKIE].value == styles_release()
    assert response.cookies[STYLES_COOKIE]["httponly"]
    assert "Cookie" in response["Vary"]


def test_a_browser_that_has_the_stylesheets_gets_the_links(client):
    client.force_login(UserFactory())
    client.get("/dashboard")  # the first visit sets the cookie
    response = client.get("/dashboard")
    assert '<link rel="stylesheet" href="/static/css/app.css">' in _head(response)
    assert "<style>" not in response.content.decode()
    assert _style_src(response) == ["'self'"]
    assert STYLES_COOKIE not in response.cookies
    assert "Cookie" in response["Vary"]


def test_a_stylesheet_of_an_older_release_is_inlined_again(client):
    client.cookies[STYLES_COOKIE] = "0ld0ld0ld0ld"
    response = client.get("/")
    assert "<style>" in _head(response)
    assert response.cookies[STYLES_COOKIE].value == styles_release()


def test_what_is_not_a_page_is_left_alone(client):
    response = client.get("/healthz")
    assert STYLES_COOKIE not in response.cookies
    assert b"<style>" not in response.content
    response = client.get("/dashboard")  # signed out: a redirect
    assert response.status_code == 302
    assert STYLES_COOKIE not in response.cookies


def test_comments_go_and_strings_that_look_like_comments_stay():
    css = "a { content: \"/* no */\"; } /* yes */\nb { content: '/*'; } /* two\nlines */"
    kept = COMMENT_OR_STRING.sub(lambda found: found[1] or "", css)
    assert kept == "a { content: \"/* no */\"; } b { content: '/*'; } "


def test_what_a_stylesheet_fetches_is_addressed_from_the_stylesheet_not_from_the_page():
    css = (
        'a { background: url("../img/wave.svg"); } @import url(\'widgets.css\'); @import "fonts.css";'
        " b { background: url(data:image/png;base64,AAAA); } c { background: url(/static/x.svg); }"
    )
    assert _anchored(css, "/static/admin/css/base.css") == (
        "a { background: url(\"/static/admin/img/wave.svg\"); } @import url('/static/admin/css/widgets.css');"
        ' @import "/static/admin/css/fonts.css";'
        " b { background: url(data:image/png;base64,AAAA); } c { background: url(/static/x.svg); }"
    )


def test_the_landing_pages_wave_comes_from_the_stylesheets_folder(client):
    head = _head(client.get("/"))
    assert 'url("/static/img/wave.svg")' in head


def test_an_edited_stylesheet_is_read_again(tmp_path, settings):
    """`make run` serves the files themselves under one name: an edit must reach the next first visit."""
    settings.STATICFILES_DIRS = [tmp_path, *settings.STATICFILES_DIRS]
    sheet = tmp_path / "css" / "bewerkt.css"
    sheet.parent.mkdir()
    sheet.write_text("a { color: red; }")
    assert _stylesheet("/static/css/bewerkt.css").text == "a { color: red; }"
    sheet.write_text("a { color: blue; }")
    changed = sheet.stat().st_mtime_ns + 1_000_000_000
    os.utime(sheet, ns=(changed, changed))
    assert _stylesheet("/static/css/bewerkt.css").text == "a { color: blue; }"
