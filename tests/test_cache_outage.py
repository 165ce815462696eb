"""A cache that is down costs speed, never the page (issue 22 §3): with `REDIS_URL` set and Redis up,
down (nothing listens) or hung (accepts, never answers), signing in, the signed-in pages and a dip
answer as always, the rate limits still hold, and a call on a hung Redis returns within its timeout
(tests/redis_states.py fails the test when one waited for seconds). The page cache's own tests run in
the same three states (tests/test_page_cache.py)."""

import logging
import pickle
from html import unescape
from unittest import mock

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.adapter import MESSAGE_TOO_MANY_LOGIN_ATTEMPTS
from apps.challenges.models import Challenge, Dip
from apps.challenges.photos import MESSAGE_UPLOAD_RATE
from apps.challenges.services.cards import challenge_start
from config.cache import RedisSerializer
from tests.challenges.photo_samples import image_bytes
from tests.factories import DEFAULT_PASSWORD
from tests.redis_states import REDIS_STATES, caches_in_state, require_redis

pytestmark = pytest.mark.django_db


@pytest.fixture(params=REDIS_STATES)
def redis_state(request, settings):
    with caches_in_state(settings, request.param) as state:
        yield state


@pytest.fixture
def card(member):
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    return challenge_start(user=member, challenge_id=waterdieren.pk)


def sign_in(client, password=DEFAULT_PASSWORD):
    return client.post("/auth", {"form": "inloggen", "login": "marit@example.nl", "password": password})


def photo(name="zee.jpg"):
    return SimpleUploadedFile(name, image_bytes("JPEG", size=(300, 200)), content_type="image/jpeg")


def test_signing_in_and_the_signed_in_pages_answer(redis_state, client, member, card):
    response = sign_in(client)
    assert response.status_code == 302 and response["Location"] == "/dashboard"
    for _ in range(2):  # the second visit is the one a working page cache would serve
        assert "Welkom" in client.get("/dashboard").content.decode()
        assert client.get("/challenge").status_code == 200
    assert client.post("/uitloggen").status_code == 302
    assert client.get("/dashboard").status_code == 302  # signed out, also without Redis


def test_a_dip_with_and_without_a_photo_is_registered(redis_state, member_client, card):
    assert member_client.post("/challenge/plons").status_code == 201
    response = member_client.post("/challenge/plons", {"photo": photo()})
    assert response.status_code == 201, response.content
    assert response.json()["dip"]["photoUrl"]
    assert card.dips.count() == 2 and Dip.objects.exclude(photo="").count() == 1
    assert '"dipCount": 2' in member_client.get("/challenge").content.decode()


def test_failed_sign_ins_stay_limited(redis_state, client, member):
    """A Redis that is down gives a guesser no unlimited attempts: the counts go to the database."""
    for _ in range(5):
        assert sign_in(client, password="fout-fout").status_code == 200
    locked = sign_in(client)
    assert locked.status_code == 200 and "_auth_user_id" not in client.session
    assert MESSAGE_TOO_MANY_LOGIN_ATTEMPTS in unescape(locked.content.decode())


def test_photo_uploads_stay_limited(redis_state, member_client, card, settings):
    settings.PHOTO_UPLOADS_PER_WINDOW = 2
    for _ in range(2):
        assert member_client.post("/challenge/plons", {"photo": photo()}).status_code == 201
    refused = member_client.post("/challenge/plons", {"photo": photo()})
    assert refused.status_code == 429 and refused.json()["error"] == MESSAGE_UPLOAD_RATE
    assert card.dips.count() == 2


def test_each_use_fails_as_chosen(redis_state, caplog):
    """Counters go to the database cache while Redis fails; the page cache misses; one warning per outage."""
    counters, pages, database = caches["default"], caches["pages"], caches["database"]
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        assert counters.add("teller", 1, 60) and counters.incr("teller") == 2
        pages.set("pagina", "html", 60)
        in_database = database.get("teller")
        page = pages.get("pagina")
    if redis_state == "up":
        assert in_database is None and page == "html"
        assert not caplog.records
    else:
        assert in_database == 2 and page is None
        assert len(caplog.records) == 1 and "does not answer" in caplog.records[0].getMessage()


def test_values_kept_for_different_times_are_stored_in_one_call(redis_state):
    """A rendered page and its new sections are stored together, each for its own time; a failing Redis
    stores nothing and raises nothing."""
    pages = caches["pages"]
    pages.set_many_each({60: {"pagina": "html", "sectie": "a"}, 3600: {"lijst": "b"}})
    if redis_state != "up":
        assert pages.get_many(["pagina", "lijst"]) == {}
        return
    assert pages.get_many(["pagina", "sectie", "lijst"]) == {"pagina": "html", "sectie": "a", "lijst": "b"}
    client = pages._cache.get_client()  # noqa: SLF001 - the expiry Redis holds
    assert 0 < client.ttl(pages.make_key("pagina")) <= 60 < client.ttl(pages.make_key("lijst")) <= 3600


def test_a_session_ended_while_redis_was_down_stays_ended(settings, member, card):
    """Sessions live in the database only: a sign-out Redis did not hear of never comes back from it."""
    require_redis()
    client = Client()
    with caches_in_state(settings, "up"):
        client.force_login(member)
        assert client.get("/dashboard").status_code == 200
        signed_in = client.cookies["sessionid"].value
    with caches_in_state(settings, "down"):
        assert client.post("/uitloggen").status_code == 302
    with caches_in_state(settings, "up", empty=False):  # what Redis held before the outage
        client.cookies["sessionid"] = signed_in
        assert client.get("/dashboard").status_code == 302


def test_the_page_cache_reads_redis_replies_with_hiredis(settings):
    """A page asks for its 20-30 sections in one reply: parsed in C (hiredis, README), not by redis-py's Python."""
    with caches_in_state(settings, "up"):
        caches["pages"].set("parser-probe", "ja", 30)
        client = caches["pages"]._cache.get_client()  # noqa: SLF001 - the client Django's backend reads with
        assert caches["pages"].get("parser-probe") == "ja"
        connection = client.connection_pool.get_connection()
        try:
            assert type(connection._parser).__name__ == "_HiredisParser"  # noqa: SLF001
        finally:
            client.connection_pool.release(connection)


def test_the_page_cache_reads_a_stored_value_as_a_pickle_and_a_counter_as_its_number(settings):
    """Django's serializer tries every value as a number first: a ValueError per stored page and section. Ours
    reads a pickle as one, and `incr`'s counters (stored as digits) still as numbers."""
    with caches_in_state(settings, "up"):
        pages = caches["pages"]
        serializer = pages._cache._serializer  # noqa: SLF001 - the serializer Django's backend reads with
        assert isinstance(serializer, RedisSerializer)
        pages.set_many({"as-pickle": ("<p>Plons</p>", None), "as-text": "12", "counter": 41}, 30)
        pages.incr("counter")
        pages.incr("counter", -44)
        assert pages.get_many(["as-pickle", "as-text", "counter"]) == {
            "as-pickle": ("<p>Plons</p>", None),
            "as-text": "12",
            "counter": -2,
        }
        pickled = pickle.dumps(b"\x80" * 3000)
        with mock.patch("builtins.int", side_effect=AssertionError("tried as a number")):
            assert serializer.loads(pickled) == b"\x80" * 3000
