"""The JSON endpoints for conditions: registering with details, editing afterwards, undoing."""

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.challenges.conditions import MESSAGE_DURATION, MESSAGE_TEMPERATURE, SAFETY_NOTE
from apps.challenges.models import Challenge, Dip, UserChallenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import MESSAGE_UNDO_TOO_LATE, dip_register
from tests.challenges.photo_samples import image_bytes
from tests.factories import DipFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(member):
    return challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)


def props(response):
    html = response.content.decode()
    start = html.index('id="stampcard-data"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def test_a_dip_with_details_is_stored_and_answered_with_its_line(member_client, card):
    response = member_client.post(
        "/challenge/plons",
        {"water_temperature": "4,5", "duration_seconds": "150", "spot": "Strand Scheveningen", "note": "Heerlijk"},
    )
    assert response.status_code == 201
    dip = response.json()["dip"]
    assert dip["conditionsDisplay"] == "4,5 °C · 2:30 · Strand Scheveningen"
    assert (dip["waterTemperature"], dip["durationSeconds"], dip["note"]) == (4.5, 150, "Heerlijk")
    assert Dip.objects.get(pk=dip["id"]).water_temperature == Decimal("4.5")


def test_a_plain_tap_still_registers_a_dip(member_client, card):
    response = member_client.post("/challenge/plons")
    assert response.status_code == 201 and response.json()["dip"]["conditionsDisplay"] == ""


def test_wrong_details_store_nothing_and_say_what_is_wrong_per_field(member_client, card):
    response = member_client.post(
        "/challenge/plons",
        {"water_temperature": "40", "duration_seconds": "61:00", "photo": SimpleUploadedFile("a.jpg", image_bytes())},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == MESSAGE_TEMPERATURE
    assert body["fields"] == {"water_temperature": MESSAGE_TEMPERATURE, "duration_seconds": MESSAGE_DURATION}
    assert not Dip.objects.exists()


def test_the_stamp_card_shows_details_suggestions_limits_and_the_safety_note(member_client, member, card):
    DipFactory(user_challenge=card, number=1, spot="Pier", water_temperature=Decimal("7.0"), duration_seconds=90)
    data = props(member_client.get("/challenge"))
    assert data["recentDips"][0]["conditionsDisplay"] == "7,0 °C · 1:30 · Pier"
    assert data["spotSuggestions"] == ["Pier"]
    assert data["conditionLimits"]["durationMaxSeconds"] == 3600
    assert data["safetyNote"] == SAFETY_NOTE
    assert data["endpoints"]["updateDip"] == "/challenge/plons/0"
    assert data["endpoints"]["undoDip"] == "/challenge/plons/0/ongedaan"


def test_details_and_photo_can_be_added_afterwards(member_client, member, card):
    dip = dip_register(user=member).dip
    response = member_client.post(
        f"/challenge/plons/{dip.pk}",
        {"water_temperature": "3", "spot": "Meer", "photo": SimpleUploadedFile("a.jpg", image_bytes())},
    )
    assert response.status_code == 200
    payload = response.json()["dip"]
    assert payload["conditionsDisplay"] == "3,0 °C · Meer" and payload["photoUrl"] == f"/foto/{dip.pk}"
    dip.refresh_from_db()
    assert dip.spot == "Meer" and dip.photo


def test_editing_with_wrong_details_changes_nothing(member_client, member, card):
    dip = dip_register(user=member).dip
    response = member_client.post(f"/challenge/plons/{dip.pk}", {"duration_seconds": "0:05", "spot": "Meer"})
    assert response.status_code == 400 and response.json()["fields"] == {"duration_seconds": MESSAGE_DURATION}
    dip.refresh_from_db()
    assert dip.spot == ""


def test_someone_elses_dip_is_a_404_for_edit_and_undo(client, member, other_member, card):
    dip = dip_register(user=member).dip
    client.force_login(other_member)
    assert client.post(f"/challenge/plons/{dip.pk}", {"spot": "Hier"}).status_code == 404
    assert client.post(f"/challenge/plons/{dip.pk}/ongedaan").status_code == 404
    dip.refresh_from_db()
    assert dip.spot == ""


def test_undo_answers_with_the_card_as_it_is_now(member_client, member, card):
    dip_register(user=member)
    latest = dip_register(user=member).dip
    response = member_client.post(f"/challenge/plons/{latest.pk}/ongedaan")
    assert response.status_code == 200
    body = response.json()
    assert body["message"] == "Plons ongedaan gemaakt."
    assert body["card"]["dipCount"] == 1 and [d["number"] for d in body["card"]["recentDips"]] == [1]


def test_undo_of_an_older_dip_is_a_409_with_the_reason(member_client, member, card):
    first = dip_register(user=member).dip
    dip_register(user=member)
    response = member_client.post(f"/challenge/plons/{first.pk}/ongedaan")
    assert response.status_code == 409 and response.json() == {"error": MESSAGE_UNDO_TOO_LATE, "code": "undo_too_late"}


@pytest.mark.parametrize("path", ["/challenge/plons/1", "/challenge/plons/1/ongedaan"])
def test_anonymous_gets_json_401_and_get_is_refused(client, member_client, path):
    assert Client().post(path).status_code == 401
    assert member_client.get(path).status_code == 405


def test_edit_and_undo_need_a_csrf_token(member, card):
    dip = dip_register(user=member).dip
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    assert client.post(f"/challenge/plons/{dip.pk}/ongedaan").status_code == 403
    assert Dip.objects.filter(pk=dip.pk).exists()
    assert UserChallenge.objects.filter(pk=card.pk).exists()


def test_the_admin_photo_collage_shows_no_conditions(admin_client, member):
    card = UserChallengeFactory(user=member)
    DipFactory(user_challenge=card, number=1, photo="1/x.jpg", spot="Geheim meer", note="privé")
    body = admin_client.get("/admin/api/fotos").content.decode()
    assert "Geheim meer" not in body and "privé" not in body and "dipId" in body


def test_the_django_admin_shows_the_conditions_read_only(admin_client, member):
    dip = DipFactory(user_challenge=UserChallengeFactory(user=member), number=1, spot="Pier", note="Fris")
    html = admin_client.get(f"/django-admin/challenges/dip/{dip.pk}/change/").content.decode()
    assert "Pier" in html and "Fris" in html
    assert 'name="spot"' not in html and 'name="note"' not in html and 'name="water_temperature"' not in html


@pytest.mark.parametrize(
    "path", ["/challenge/plons/99999999999999999999", "/challenge/plons/99999999999999999999/ongedaan"]
)
def test_an_id_beyond_any_dip_is_a_json_404(member_client, path):
    response = member_client.post(path, {"spot": "Pier"})
    assert response.status_code == 404 and response.json() == {
        "error": "Deze plons bestaat niet (meer).",
        "code": "dip_unknown",
    }
