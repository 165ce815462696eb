"""config/sessions.py: the database session store read with one plain query behaves as Django's own."""

import datetime

import pytest
import time_machine
from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from config.sessions import SessionStore

pytestmark = pytest.mark.django_db


def _saved(data: dict) -> str:
    store = DjangoSessionStore()
    store.update(data)
    store.create()
    return store.session_key


def test_it_is_the_database_store():
    assert issubclass(SessionStore, DjangoSessionStore)


def test_a_saved_session_loads_with_one_query(django_assert_num_queries):
    key = _saved({"kleur": "blauw", "_auth_user_id": "7"})
    store = SessionStore(session_key=key)
    with django_assert_num_queries(1):
        assert store.load() == {"kleur": "blauw", "_auth_user_id": "7"}
    assert store.session_key == key


def test_an_expired_session_is_empty_and_forgets_its_key():
    key = _saved({"kleur": "blauw"})
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    store = SessionStore(session_key=key)
    assert store.load() == {}
    assert store.session_key is None


@pytest.mark.parametrize("key", ["onbekend" + "x" * 24, "kort", "'; DROP TABLE django_session; --" + "x" * 8])
def test_an_unknown_or_odd_key_is_an_empty_session(key):
    store = SessionStore(session_key=key)
    assert store.load() == {}
    assert store.session_key is None
    assert Session.objects.exists() is False


def test_saving_and_signing_out_work_as_before(client, member):
    client.force_login(member)
    assert client.get("/dashboard").status_code == 200
    client.logout()
    assert client.get("/dashboard").status_code == 302


def test_a_request_with_an_expired_session_cookie_is_signed_out(client, member, settings):
    """Through a request, whatever the store: the same cookie that opened the dashboard is refused once its
    session has expired (a cookie replayed from a browser that kept it, or a copied one)."""
    client.force_login(member)
    assert client.get("/dashboard").status_code == 200
    later = timezone.now() + datetime.timedelta(seconds=settings.SESSION_COOKIE_AGE, days=1)
    with time_machine.travel(later, tick=False):
        response = client.get("/dashboard")
    assert response.status_code == 302 and response["Location"].startswith(settings.LOGIN_URL)
