"""apps/accounts/backends.py: the member behind a session is read with one compiled query and is the member the
ORM reads; sessions signed in under the backends' old paths stay signed in."""

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY, get_user
from django.contrib.sessions.models import Session
from django.test import RequestFactory

from apps.accounts.backends import RENAMED, AllauthBackend, ModelBackend, member_by_id
from apps.accounts.models import User
from config.sessions import SessionStore
from tests.accounts.test_auth_view import sign_in

pytestmark = pytest.mark.django_db


def _every_column(user: User) -> dict:
    return {field.attname: getattr(user, field.attname) for field in User._meta.concrete_fields}


@pytest.mark.parametrize("backend", [ModelBackend, AllauthBackend])
def test_the_member_is_the_one_the_orm_reads_in_one_query(backend, member, django_assert_num_queries):
    member.full_name = "Marit van der Zwemmer"
    member.save(update_fields=["full_name"])
    with django_assert_num_queries(1):
        found = backend().get_user(member.pk)
    expected = User.objects.get(pk=member.pk)
    assert _every_column(found) == _every_column(expected)
    assert found.full_name == "Marit van der Zwemmer"
    assert found._state.adding is False
    assert found._state.db == "default"
    found.full_name = "Marit Zwemmer"
    found.save(update_fields=["full_name"])  # a loaded member saves as one from the ORM does
    assert User.objects.get(pk=member.pk).full_name == "Marit Zwemmer"


def test_an_inactive_or_unknown_member_is_nobody(member):
    member.is_active = False
    member.save(update_fields=["is_active"])
    assert ModelBackend().get_user(member.pk) is None
    assert AllauthBackend().get_user(member.pk) is None
    assert member_by_id(member.pk + 1000) is None
    assert ModelBackend().get_user(member.pk + 1000) is None


def test_signing_in_keeps_the_backend_by_its_path_here(client, member):
    assert sign_in(client).status_code == 302
    assert client.session[BACKEND_SESSION_KEY] in RENAMED.values()
    assert client.get("/dashboard").status_code == 200


@pytest.mark.parametrize("old_path", sorted(RENAMED))
def test_a_session_signed_in_under_an_old_path_stays_signed_in(client, member, old_path):
    client.force_login(member)
    session = SessionStore(session_key=client.session.session_key)
    data = session.load()
    data[BACKEND_SESSION_KEY] = old_path
    Session.objects.filter(session_key=session.session_key).update(session_data=session.encode(data))

    assert client.get("/dashboard").status_code == 200
    request = RequestFactory().get("/dashboard")
    request.session = SessionStore(session_key=session.session_key)
    assert get_user(request) == member
    assert request.session[SESSION_KEY] == str(member.pk)


def test_a_session_of_a_backend_that_is_not_listed_is_signed_out(client, member):
    client.force_login(member)
    session = SessionStore(session_key=client.session.session_key)
    data = session.load()
    data[BACKEND_SESSION_KEY] = "elders.Backend"
    Session.objects.filter(session_key=session.session_key).update(session_data=session.encode(data))
    assert client.get("/dashboard").status_code == 302
