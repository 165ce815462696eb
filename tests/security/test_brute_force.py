"""Sign-in brute force, with the limits as configured (settings.ACCOUNT_RATE_LIMITS plus allauth's defaults).

tests/accounts/test_auth_view.py already shows: five wrong passwords for one address give the Dutch
'wait' message and then even the right password is refused from that client; the per-IP request limit
('login') and the sign-up limit answer 429 (with lowered limits). This module covers the rest:

- the per-address lock is per address and client IP (our adapter's key): another member signing in from
  the same place is not locked, and the owner signs in from their own connection (issue 10);
- all spellings of one address share one budget (allauth keys on the lower-cased address);
- spraying one password over many addresses hits the per-IP failure limit, for that IP only;
- a forged X-Forwarded-For gives no fresh budget, and behind a trusted proxy the client's IP counts;
- the lock ends when the window has passed (allauth keeps a sliding window of failure timestamps);
- a successful sign-in does not wipe earlier failures (allauth only rolls back its own attempt);
- an address without an account is locked the same way, so the lock reveals nothing;
- the configured per-IP request limit and the password reset limits.

allauth's behaviour, precisely (django-allauth 65, allauth.account.adapter.pre_authenticate/authenticate):
every sign-in attempt first consumes one 'login_failed' hit for the IP and one for the lower-cased
address (with our adapter: for the IP plus the address); when either is exhausted the form says
'too_many_login_attempts' *before* the password is checked, so a correct password is refused in the same
way. A successful attempt gives its hit back.
The hits expire one by one, `duration` seconds after they were made.
"""

import re
from html import unescape

import pytest
from allauth.core.internal import ratelimit as allauth_ratelimit
from django.conf import settings
from django.test import Client, override_settings

from apps.accounts.adapter import MESSAGE_TOO_MANY_LOGIN_ATTEMPTS
from apps.accounts.views.auth import MESSAGE_TOO_MANY_REQUESTS
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db

WRONG = "Het door jou opgegeven e-mailadres en/of wachtwoord is niet correct."


def rate(action: str, per: str) -> tuple[int, int]:
    """(amount, seconds) of the configured limit for `action` per 'ip' or 'key'."""
    from allauth.account import app_settings

    for spec in app_settings.RATE_LIMITS[action].split(","):
        parsed = allauth_ratelimit.parse_rate(spec.strip())
        if parsed.per == per:
            return parsed.amount, int(parsed.duration)
    raise AssertionError(f"no {per} limit for {action}")


KEY_ATTEMPTS, KEY_WINDOW = rate("login_failed", "key")
IP_ATTEMPTS, IP_WINDOW = rate("login_failed", "ip")


def sign_in(client: Client, login: str, password: str):
    return client.post("/auth", {"form": "inloggen", "login": login, "password": password})


def outcome(response) -> str:
    if response.status_code == 302:
        return "signed in"
    html = unescape(response.content.decode())
    if MESSAGE_TOO_MANY_LOGIN_ATTEMPTS in html:
        return "locked"
    if MESSAGE_TOO_MANY_REQUESTS in html:
        return "too many requests"
    if WRONG in html:
        return "wrong"
    raise AssertionError(re.sub(r"\s+", " ", html)[:500])


@pytest.fixture
def marit(db):
    return UserFactory(email="marit@example.nl")


@pytest.fixture
def otto(db):
    return UserFactory(email="otto@example.nl")


def exhaust_the_address(client: Client, login: str = "marit@example.nl") -> None:
    for _ in range(KEY_ATTEMPTS):
        assert outcome(sign_in(client, login, "fout-fout")) == "wrong"
    assert outcome(sign_in(client, login, "fout-fout")) == "locked"


def test_the_configured_limits_are_the_ones_these_tests_assume():
    assert (KEY_ATTEMPTS, KEY_WINDOW) == (5, 300)
    assert (IP_ATTEMPTS, IP_WINDOW) == (10, 60)


def test_the_lock_is_per_address_and_another_member_signs_in_from_the_same_place(marit, otto):
    attacker = Client(REMOTE_ADDR="192.0.2.10")
    exhaust_the_address(attacker)
    # Same IP, other account: still signs in (the IP has used 6 of its 10 failures).
    assert outcome(sign_in(Client(REMOTE_ADDR="192.0.2.10"), "otto@example.nl", DEFAULT_PASSWORD)) == "signed in"
    # From the attacker's IP the address stays locked, the right password included.
    assert outcome(sign_in(Client(REMOTE_ADDR="192.0.2.10"), "marit@example.nl", DEFAULT_PASSWORD)) == "locked"


def test_the_owner_is_not_locked_out_by_someone_elses_guesses(marit):
    """Issue 10: five wrong passwords from elsewhere used to lock the real owner out everywhere."""
    exhaust_the_address(Client(REMOTE_ADDR="192.0.2.10"))
    assert outcome(sign_in(Client(REMOTE_ADDR="198.51.100.7"), "marit@example.nl", DEFAULT_PASSWORD)) == "signed in"


def test_a_guesser_moving_to_a_new_ip_gets_five_tries_there_and_no_more(marit):
    exhaust_the_address(Client(REMOTE_ADDR="192.0.2.10"))
    exhaust_the_address(Client(REMOTE_ADDR="192.0.2.11"))
    assert outcome(sign_in(Client(REMOTE_ADDR="192.0.2.11"), "marit@example.nl", DEFAULT_PASSWORD)) == "locked"


def test_the_lock_message_points_to_a_new_password(marit):
    client = Client(REMOTE_ADDR="192.0.2.10")
    exhaust_the_address(client)
    html = sign_in(client, "marit@example.nl", DEFAULT_PASSWORD).content.decode()
    assert "of kies hieronder 'Wachtwoord vergeten?'" in unescape(html)
    assert 'href="/auth/wachtwoord-vergeten"' in html


@pytest.mark.parametrize(
    "spellings",
    [
        ["MARIT@EXAMPLE.NL", "Marit@Example.nl", "marit@example.nl", " marit@example.nl ", "mArIt@eXaMpLe.Nl"],
        ["marit@example.nl"] * 5,
    ],
    ids=["mixed-case-and-spaces", "same"],
)
def test_every_spelling_of_an_address_counts_against_one_budget(marit, spellings):
    client = Client()
    for login in spellings:
        assert outcome(sign_in(client, login, "fout-fout")) == "wrong"
    for login in ("marit@example.nl", "MARIT@example.NL"):
        assert outcome(sign_in(client, login, DEFAULT_PASSWORD)) == "locked"


def test_spraying_one_password_over_many_addresses_hits_the_ip_limit_for_that_ip_only(otto):
    sprayer = Client(REMOTE_ADDR="203.0.113.5")
    for i in range(IP_ATTEMPTS):
        assert outcome(sign_in(sprayer, f"lid{i}@example.nl", "Zomer2026!")) == "wrong"
    # The next attempt from that IP is refused before any password is checked, the right one included.
    assert outcome(sign_in(sprayer, "otto@example.nl", DEFAULT_PASSWORD)) == "locked"
    # Otto himself, from his own IP, is not affected: his address had no failures.
    assert outcome(sign_in(Client(REMOTE_ADDR="198.51.100.20"), "otto@example.nl", DEFAULT_PASSWORD)) == "signed in"


def test_a_forged_x_forwarded_for_header_gives_no_fresh_budget(otto):
    """Without a trusted proxy (TRUSTED_PROXY_COUNT=0) the header is ignored: REMOTE_ADDR counts."""
    assert settings.ALLAUTH_TRUSTED_PROXY_COUNT == 0
    for i in range(IP_ATTEMPTS):
        client = Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR=f"10.9.{i}.1")
        assert outcome(sign_in(client, f"lid{i}@example.nl", "fout-fout")) == "wrong"
    client = Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.9.99.1")
    assert outcome(sign_in(client, "otto@example.nl", DEFAULT_PASSWORD)) == "locked"


@override_settings(ALLAUTH_TRUSTED_PROXY_COUNT=1)
def test_behind_one_trusted_proxy_the_address_it_adds_is_the_client(otto):
    """The load balancer appends the client's address; whatever the client wrote before it is not trusted."""
    proxy = "10.0.0.1"
    for i in range(IP_ATTEMPTS):
        forged = f"1.1.1.{i}, 198.51.100.66"  # the attacker varies the part they control
        client = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=forged)
        assert outcome(sign_in(client, f"lid{i}@example.nl", "fout-fout")) == "wrong"
    attacker = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="1.1.1.200, 198.51.100.66")
    assert outcome(sign_in(attacker, "otto@example.nl", DEFAULT_PASSWORD)) == "locked"
    # Someone else behind the same load balancer has their own budget.
    neighbour = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.67")
    assert outcome(sign_in(neighbour, "otto@example.nl", DEFAULT_PASSWORD)) == "signed in"


class Clock:
    """allauth's rate limiter reads time.time(); this one can jump forward."""

    def __init__(self, real):
        self._real = real
        self.offset = 0.0
        self.monotonic = real.monotonic
        self.sleep = real.sleep

    def time(self) -> float:
        return self._real.time() + self.offset


@pytest.fixture
def clock(monkeypatch):
    fake = Clock(allauth_ratelimit.time)
    monkeypatch.setattr(allauth_ratelimit, "time", fake)
    return fake


def test_the_lock_ends_when_the_window_has_passed(marit, clock):
    client = Client()
    exhaust_the_address(client)
    clock.offset = KEY_WINDOW - 5
    assert outcome(sign_in(client, "marit@example.nl", DEFAULT_PASSWORD)) == "locked"
    clock.offset = KEY_WINDOW + 1
    assert outcome(sign_in(client, "marit@example.nl", DEFAULT_PASSWORD)) == "signed in"


def test_the_window_slides_each_failure_expires_on_its_own(marit, clock):
    client = Client()
    for minute in range(KEY_ATTEMPTS):
        clock.offset = minute * 60
        assert outcome(sign_in(client, "marit@example.nl", "fout-fout")) == "wrong"
    # Just after the first failure expired, exactly one attempt is free again.
    clock.offset = KEY_WINDOW + 1
    assert outcome(sign_in(client, "marit@example.nl", "fout-fout")) == "wrong"
    assert outcome(sign_in(client, "marit@example.nl", DEFAULT_PASSWORD)) == "locked"


def test_a_successful_sign_in_does_not_wipe_earlier_failures(marit):
    """allauth gives back only the successful attempt's own hit, so a brute force cannot 'reset' the count
    by signing in to an account it owns in between."""
    attacker = Client()
    for _ in range(KEY_ATTEMPTS - 1):
        assert outcome(sign_in(attacker, "marit@example.nl", "fout-fout")) == "wrong"
    member = Client()
    assert outcome(sign_in(member, "marit@example.nl", DEFAULT_PASSWORD)) == "signed in"
    assert outcome(sign_in(attacker, "marit@example.nl", "fout-fout")) == "wrong"
    assert outcome(sign_in(attacker, "marit@example.nl", DEFAULT_PASSWORD)) == "locked"


def test_an_address_without_an_account_is_locked_the_same_way(db):
    client = Client()
    exhaust_the_address(client, "niemand@example.nl")
    response = sign_in(client, "niemand@example.nl", "fout-fout")
    assert response.status_code == 200
    assert MESSAGE_TOO_MANY_LOGIN_ATTEMPTS in unescape(response.content.decode())


def test_the_locked_answer_keeps_the_address_and_drops_the_password(marit):
    client = Client()
    exhaust_the_address(client)
    html = sign_in(client, "marit@example.nl", "geheim-geprobeerd").content.decode()
    assert "Wacht een paar minuten" in html
    assert 'value="marit@example.nl"' in html
    assert "geheim-geprobeerd" not in html
    assert "_auth_user_id" not in client.session


def test_the_configured_request_limit_per_ip_answers_429_with_the_wait_message(marit):
    """Not only failures: every sign-in POST counts ('login', allauth's default 30/m/ip)."""
    amount, _seconds = rate("login", "ip")
    client = Client(REMOTE_ADDR="192.0.2.77")
    for _ in range(amount):
        sign_in(client, "marit@example.nl", DEFAULT_PASSWORD)
        client.post("/uitloggen")
    response = sign_in(client, "marit@example.nl", DEFAULT_PASSWORD)
    assert response.status_code == 429
    assert "Wacht een minuut" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_password_reset_requests_are_limited_per_address(marit, mailoutbox):
    amount, _seconds = rate("reset_password", "key")
    client = Client()
    for _ in range(amount):
        assert client.post("/auth/wachtwoord-vergeten", {"email": "marit@example.nl"}).status_code == 302
    response = client.post("/auth/wachtwoord-vergeten", {"email": "MARIT@example.nl"})
    assert response.status_code == 429
    assert "Wacht een paar minuten" in response.content.decode()
    run_worker()  # the reset mails are queued like every other mail
    assert len(mailoutbox) == amount


def test_guessing_reset_keys_is_limited_per_ip(marit):
    amount, _seconds = rate("reset_password_from_key", "ip")
    client = Client(REMOTE_ADDR="192.0.2.88")
    statuses = [
        client.post(
            f"/auth/wachtwoord-herstellen/{marit.pk}-gok{i}", {"password1": "nieuw-123", "password2": "nieuw-123"}
        ).status_code
        for i in range(amount + 1)
    ]
    assert 500 not in statuses
    assert statuses[-1] == 429
    marit.refresh_from_db()
    assert marit.check_password(DEFAULT_PASSWORD)
