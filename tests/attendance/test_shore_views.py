"""/events/<id>/waterkant over HTTP: the page in a fixed number of queries, the phone's JSON with its Dutch refusals
and their codes (nothing half-written, never a 500), and a tap of another organiser's session kept for her."""

import datetime
import json

import pytest
from django.test import Client

from apps.accounts.access import MEMBER_HEADER, member_mark
from apps.attendance.models import Attendance, ShoreSwimmer
from tests.factories import EventFactory, EventParticipantFactory, OrganiserFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return OrganiserFactory(full_name="Olga Organisator")


@pytest.fixture
def phone(organiser):
    client = Client()
    client.force_login(organiser)
    return client


@pytest.fixture
def swim(now):
    return EventFactory(title="Zondagduik", event_date=now - datetime.timedelta(hours=1))


def _members(swim, count: int):
    members = [UserFactory(full_name=f"Zwemmer {swim.pk}-{i}") for i in range(count)]
    for member in members:
        EventParticipantFactory(event=swim, user=member)
        UserChallengeFactory(user=member, started_at=swim.event_date - datetime.timedelta(days=2))
    return members


def _post(phone, swim, what: str, body, **headers):
    data = body if isinstance(body, str) else json.dumps(body)
    return phone.post(f"/events/{swim.pk}/waterkant/{what}", data, content_type="application/json", **headers)


@pytest.mark.parametrize("size", [2, 25])
def test_the_page_makes_the_same_queries_at_any_size(phone, swim, now, size, django_assert_max_num_queries):
    for member in _members(swim, size):
        _post(phone, swim, "tik", {"swimmer": f"lid-{member.pk}", "kind": "in", "tapped_at": now.isoformat()})
    with django_assert_max_num_queries(12):
        response = phone.get(f"/events/{swim.pk}/waterkant")
    assert response.status_code == 200 and response.content.decode().count("Zwemmer ") >= size
    with django_assert_max_num_queries(8):
        assert len(phone.get(f"/events/{swim.pk}/waterkant/stand").json()["swimmers"]) == size


def test_a_tap_answers_the_list_and_marks_her_present(phone, swim, now):
    [member] = _members(swim, 1)
    response = _post(phone, swim, "tik", {"swimmer": f"lid-{member.pk}", "kind": "in", "tapped_at": now.isoformat()})
    assert response.status_code == 200
    [row] = response.json()["swimmers"]
    assert row["went_in_at"] is not None and response["Cache-Control"] == "private, no-store"
    assert Attendance.objects.filter(event=swim, user=member).exists()


@pytest.mark.parametrize(
    "body",
    [
        "niet json",
        "[1, 2]",
        {"swimmer": "lid-1", "kind": "in", "tapped_at": "gisteren"},
        {"swimmer": "lid-1", "kind": "in", "tapped_at": "2026-12-06T10:00:00"},  # no offset
        {"swimmer": "lid-1", "kind": "in"},
        {"swimmer": "x" * 3000, "kind": "in", "tapped_at": "2026-12-06T10:00:00+01:00"},
    ],
)
def test_a_tap_the_server_cannot_read_is_a_dutch_400(phone, swim, body):
    response = _post(phone, swim, "tik", body)
    assert response.status_code == 400
    assert response.json()["code"] == "shore_bad_tap" and response.json()["error"].startswith("Deze tik klopt niet")
    assert not ShoreSwimmer.objects.exists()


def test_a_tap_kept_for_another_organiser_waits_for_her(phone, swim, now):
    [member] = _members(swim, 1)
    someone_else = member_mark(OrganiserFactory().pk)
    body = {"swimmer": f"lid-{member.pk}", "kind": "in", "tapped_at": now.isoformat()}
    response = _post(phone, swim, "tik", body, **{f"HTTP_{MEMBER_HEADER.upper().replace('-', '_')}": someone_else})
    assert response.status_code == 409 and response.json()["code"] == "shore_other_member"
    assert not ShoreSwimmer.objects.exists()


def test_a_member_is_added_by_name_and_an_unknown_name_is_said_in_dutch(phone, swim):
    walk_in = UserFactory(full_name="Wim Zonderaanmelding", email="wim@example.nl")
    assert _post(phone, swim, "lid", {"name": "Niemand Bekend"}).json()["code"] == "find_none"
    response = _post(phone, swim, "lid", {"name": "wim zonderaanmelding"})
    assert response.status_code == 200
    assert [row["name"] for row in response.json()["swimmers"]] == ["Wim Zonderaanmelding"]
    assert ShoreSwimmer.objects.get().user == walk_in


def test_everyone_out_is_refused_with_the_names_still_in(phone, swim, now):
    [member] = _members(swim, 1)
    _post(phone, swim, "tik", {"swimmer": f"lid-{member.pk}", "kind": "in", "tapped_at": now.isoformat()})
    response = _post(phone, swim, "dicht", {})
    assert response.status_code == 409 and response.json()["code"] == "shore_still_in_water"
    assert member.full_name in response.json()["error"]


def test_another_day_the_list_is_there_without_taps(phone, now):
    swim = EventFactory(event_date=now + datetime.timedelta(days=2))
    assert phone.get(f"/events/{swim.pk}/waterkant/stand").json()["open"] is False
    response = _post(phone, swim, "tik", {"swimmer": "lid-1", "kind": "in", "tapped_at": now.isoformat()})
    assert response.status_code == 409 and response.json()["code"] == "shore_not_the_day"
