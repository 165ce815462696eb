"""A first visit carries its stylesheets inline (config/first_visit_styles.py): in Chromium the page is styled
by them under the strict policy, and the next page links the files the browser fetched meanwhile."""

from tests.e2e.conftest import sign_in
from tests.factories import UserFactory

HEADER_POSITION = "() => getComputedStyle(document.querySelector('.site-header')).position"
STYLESHEETS = """() => ({
  inline: document.querySelectorAll('head style').length,
  linked: [...document.head.querySelectorAll('link[rel=stylesheet]')].map(link => link.sheet !== null),
})"""


def test_a_first_visit_is_styled_inline_within_the_policy_and_the_next_page_links_the_files(page):
    sign_in(page, UserFactory())
    violations: list[str] = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)

    page.goto(page.base_url + "/dashboard", wait_until="networkidle")
    assert page.evaluate(STYLESHEETS) == {"inline": 2, "linked": []}
    assert page.evaluate(HEADER_POSITION) == "sticky"

    page.goto(page.base_url + "/account", wait_until="networkidle")
    assert page.evaluate(STYLESHEETS) == {"inline": 0, "linked": [True]}
    assert page.evaluate(HEADER_POSITION) == "sticky"
    assert violations == []
    assert page.js_errors == []
