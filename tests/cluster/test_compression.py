"""HTML compressed on the wire by the shipped proxy (deploy/nginx/koud.conf), without a BREACH hole: the
member's CSRF token, the one secret of the page, is masked anew in every answer."""

import gzip
import re

import pytest

from tests.support import cluster as parts

from .members import PASSWORD, member_with_card

pytestmark = [pytest.mark.cluster, pytest.mark.django_db(transaction=True)]
TOKENS = re.compile(r'(?<=value=")[A-Za-z0-9]{64}(?=")|(?<=<meta name="csrf-token" content=")[A-Za-z0-9]{64}(?=")')


def signed_in(cluster, email: str) -> parts.Browser:
    member_with_card(email)
    browser = cluster.browser()
    browser.sign_in(email, PASSWORD)
    browser.get("/dashboard")  # the one with "Je bent nu ingelogd": the pages compared come after it
    return browser


def test_the_dashboard_goes_gzipped_to_a_browser_that_accepts_it_and_decodes_to_the_same_page(running_cluster):
    browser = signed_in(running_cluster, "gzip@example.nl")
    plain = browser.request("GET", "/dashboard")
    assert plain.status == 200 and plain.headers.get("Content-Encoding") is None
    assert "Plonsen" in plain.text

    packed = browser.request("GET", "/dashboard", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert packed.status == 200
    assert packed.headers.get("Content-Encoding") == "gzip"
    assert "Accept-Encoding" in packed.headers.get("Vary", "")
    assert len(packed.body) * 3 < len(plain.body)  # 22 KB of HTML is a few KB on the wire
    page = gzip.decompress(packed.body).decode()
    # The same page; only the per-answer CSRF tokens differ.
    assert TOKENS.sub("", page) == TOKENS.sub("", plain.text)


def test_each_compressed_answer_carries_its_own_masked_csrf_token(running_cluster):
    """BREACH guesses a secret that stays the same in answer after answer: the token never does."""
    browser = signed_in(running_cluster, "breach@example.nl")
    tokens = []
    for _ in range(3):
        answer = browser.request("GET", "/dashboard", headers={"Accept-Encoding": "gzip"})
        assert answer.headers.get("Content-Encoding") == "gzip"
        found = set(TOKENS.findall(gzip.decompress(answer.body).decode()))
        assert len(found) == 1  # the page's forms and its meta tag: one token per answer
        tokens.append(found.pop())
    assert len(set(tokens)) == 3
    assert browser.jar["csrftoken"] not in "".join(tokens)  # the cookie's secret itself is never in the page
