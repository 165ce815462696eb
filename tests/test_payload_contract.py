"""The contract between the server and the islands: what the views send must match the TypeScript types.

The JSON Schema is generated from the TypeScript payload types on every run (`npm run schema` in
frontend/, ts-json-schema-generator), and real answers of the views are checked against it with
`jsonschema`: a key renamed, added or dropped on either side without the other fails here. Every
exported type (and every type they use) must meet a real answer, the error body included, and a field
every answer carries must be required in TypeScript (the last test of this module).
"""

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import jsonschema
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError
from django.test import Client

import apps.challenges.views.challenge as challenge_views
from apps.challenges.models import Challenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from tests.challenges.photo_samples import image_bytes
from tests.factories import InvitationFactory, UserFactory

FRONTEND = Path(__file__).resolve().parents[1] / "frontend"


@pytest.fixture(scope="session")
def definitions() -> dict:
    if not (FRONTEND / "node_modules" / ".bin" / "ts-json-schema-generator").exists():
        pytest.fail("frontend/node_modules is missing: run `make install` (or `npm ci` in frontend/)")
    result = subprocess.run(
        ["npm", "run", "--silent", "schema"], cwd=FRONTEND, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["definitions"]


DEFINITIONS = "#/definitions/"
# Every value that validated against a TypeScript type in this session, per type name.
MET: dict[str, list] = defaultdict(list)


def _recording_ref(validator, reference, instance, schema):
    errors = list(jsonschema.Draft7Validator.VALIDATORS["$ref"](validator, reference, instance, schema))
    # Only a value that fits the type counts: `Badge | null` tries Badge on null, which is no meeting.
    if not errors and reference.startswith(DEFINITIONS):
        MET[reference.removeprefix(DEFINITIONS)].append(instance)
    yield from errors


RecordingValidator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"$ref": _recording_ref})


def check(definitions: dict, type_name: str, payload) -> None:
    assert type_name in definitions, f"no TypeScript type {type_name} in the generated schema"
    schema = {"$ref": f"{DEFINITIONS}{type_name}", "definitions": definitions}
    RecordingValidator(schema).validate(payload)


def check_error(definitions: dict, response, status: int) -> dict:
    """A refusal: its status, and its body is the islands' ErrorBody (frontend/src/lib/types.ts)."""
    assert response.status_code == status, response.content
    body = response.json()
    check(definitions, "ErrorBody", body)
    return body


def island_data(response, element_id: str) -> dict:
    html = response.content.decode()
    start = html.index(f'id="{element_id}"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


@pytest.mark.django_db
def test_the_dashboard_celebration_and_a_dip_without_a_card_match_the_types(definitions, member, member_client):
    """Issue 25: a club challenge completed from the dashboard, and the stamp card endpoint without a card."""
    from tests.factories import ClubChallengeEntryFactory, ClubChallengeFactory

    ClubChallengeEntryFactory(user=member, club_challenge=ClubChallengeFactory(kind="dagen", target=1))
    ClubChallengeEntryFactory(user=member, club_challenge=ClubChallengeFactory(kind="clubdoel", target=2))
    answer = member_client.post("/challenge/plons")
    assert answer.status_code == 201 and answer.json()["celebration"] == "completion"
    check(definitions, "RegisterDipResponse", answer.json())
    page = member_client.post("/challenge/club/plons", follow=True)
    check(definitions, "CelebrationPageData", island_data(page, "celebration-data"))


@pytest.mark.django_db
def test_the_stamp_card_props_and_dip_answers_match_the_types(definitions, member, member_client):
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    challenge_start(user=member, challenge_id=waterdieren.pk)
    for number in range(1, 10):
        photo = ProcessedPhoto(full=b"\xff\xd8full", thumbnail=b"\xff\xd8thumb") if number % 3 == 0 else None
        dip_register(user=member, photo=photo)
    check(definitions, "StampCardData", island_data(member_client.get("/challenge"), "stampcard-data"))

    # The tenth dip earns the Kikker badge (a milestone), with a photo.
    upload = SimpleUploadedFile("plons.jpg", image_bytes(), content_type="image/jpeg")
    answer = member_client.post("/challenge/plons", {"photo": upload})
    assert answer.status_code == 201 and answer.json()["celebration"] == "milestone"
    check(definitions, "RegisterDipResponse", answer.json())


@pytest.mark.django_db
def test_the_buddies_on_a_dip_s_line_match_the_types(definitions, member, member_client, other_member):
    """Issue 24: "Met {namen}" on the dip the member named a buddy on, and on the buddy's own dip once put on
    their card ("Zet op mijn kaart")."""
    from apps.together.services import buddy_accept

    other_member.full_name = "Bram Buddy"
    other_member.save(update_fields=["full_name"])
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    for user in (member, other_member):
        challenge_start(user=user, challenge_id=waterdieren.pk)
    answer = member_client.post("/challenge/plons", {"buddies": [str(other_member.pk)]})
    assert answer.status_code == 201 and answer.json()["dip"]["buddiesDisplay"] == "Met Bram Buddy"
    check(definitions, "RegisterDipResponse", answer.json())
    props = island_data(member_client.get("/challenge"), "stampcard-data")
    assert props["recentDips"][0]["buddiesDisplay"] == "Met Bram Buddy"
    check(definitions, "StampCardData", props)

    tag = other_member.buddy_tags.get()
    buddy_accept(user=other_member, tag_id=tag.pk)
    buddy = Client()
    buddy.force_login(other_member)
    theirs = island_data(buddy.get("/challenge"), "stampcard-data")
    assert theirs["recentDips"][0]["buddiesDisplay"] == f"Met {member.display_name}"
    check(definitions, "StampCardData", theirs)


@pytest.mark.django_db
def test_a_completed_card_and_its_last_answer_match_the_types(definitions, member, member_client):
    starter = Challenge.objects.filter(category=Challenge.Category.NORMAL).order_by("target_dips").first()
    challenge_start(user=member, challenge_id=starter.pk)
    for _ in range(starter.target_dips - 1):
        dip_register(user=member)
    answer = member_client.post("/challenge/plons")
    assert answer.json()["completed"] is True
    check(definitions, "RegisterDipResponse", answer.json())
    check(definitions, "StampCardData", island_data(member_client.get("/challenge"), "stampcard-data"))


@pytest.mark.django_db
def test_the_admin_islands_data_and_answers_match_the_types(definitions, admin_client, member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    dip_register(user=member, photo=ProcessedPhoto(full=b"\xff\xd8full", thumbnail=b"\xff\xd8thumb"))
    InvitationFactory(email="gebruikt@example.nl", used_by=member, used_at=member.created_at)
    InvitationFactory()

    check(definitions, "AdminData", island_data(admin_client.get("/admin"), "admin-data"))
    check(definitions, "PhotoPage", admin_client.get("/admin/api/fotos").json())
    check(definitions, "InvitationPage", admin_client.get("/admin/api/uitnodigingen").json())
    check(definitions, "UsersResponse", admin_client.get("/admin/api/gebruikers").json())

    created = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": "nieuw@example.nl"})
    assert created.status_code == 201
    check(definitions, "InvitationCreated", created.json())
    bulk = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "a@example.nl, marit@example.nl"})
    assert bulk.status_code == 201 and bulk.json()["skipped"] == ["marit@example.nl"]
    check(definitions, "InvitationBulkCreated", bulk.json())

    invitation_id = created.json()["invitation"]["id"]
    check(
        definitions,
        "MessageResponse",
        admin_client.post(f"/admin/api/uitnodigingen/{invitation_id}/verwijderen").json(),
    )
    other = UserFactory()
    made = admin_client.post(f"/admin/api/gebruikers/{other.pk}/organisator", {"organiser": True}, "application/json")
    check(definitions, "UserOrganiserChanged", made.json())
    other = UserFactory()
    check(definitions, "UserDeleted", admin_client.post(f"/admin/api/gebruikers/{other.pk}/verwijderen").json())


@pytest.mark.django_db
def test_a_renamed_key_breaks_the_contract(definitions, member, member_client):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    answer = member_client.post("/challenge/plons").json()
    answer["dip_count"] = answer.pop("dipCount")
    with pytest.raises(jsonschema.ValidationError):
        check(definitions, "RegisterDipResponse", answer)


@pytest.mark.django_db
def test_the_dip_edit_and_undo_answers_match_the_types(definitions, member, member_client):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    first = member_client.post("/challenge/plons").json()["dip"]
    logged = {"water_temperature": "4,5", "duration_seconds": "150", "spot": "Strand Scheveningen", "note": "Koud!"}
    latest = member_client.post("/challenge/plons", logged)
    assert latest.status_code == 201
    check(definitions, "Dip", latest.json()["dip"])

    edited = member_client.post(f"/challenge/plons/{first['id']}", logged)
    assert edited.status_code == 200
    check(definitions, "UpdateDipResponse", edited.json())
    # The photo sent after its dip (stampcard/photo-after.tsx) is answered the same way.
    photo = SimpleUploadedFile("IMG_2041.jpg", image_bytes(), content_type="image/jpeg")
    after = member_client.post(f"/challenge/plons/{first['id']}", {"photo_after_tap": "1", "photo": photo})
    assert after.status_code == 200 and after.json()["dip"]["photoUrl"]
    check(definitions, "UpdateDipResponse", after.json())
    check(definitions, "StampCardData", island_data(member_client.get("/challenge"), "stampcard-data"))

    undone = member_client.post(f"/challenge/plons/{latest.json()['dip']['id']}/ongedaan")
    assert undone.status_code == 200
    check(definitions, "UndoDipResponse", undone.json())


@pytest.mark.django_db
def test_the_refusals_are_the_error_body(definitions, member, member_client, other_member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    older, _latest = (member_client.post("/challenge/plons").json()["dip"] for _ in range(2))

    # A wrong detail: the message, and each wrong field's own message for its input.
    for wrong_field, value in (("water_temperature", "99"), ("spot", "x" * 81)):
        wrong = check_error(definitions, member_client.post("/challenge/plons", {wrong_field: value}), 400)
        assert set(wrong["fields"]) == {wrong_field}
        check(definitions, "ConditionErrors", wrong["fields"])
        check(definitions, "ConditionField", wrong_field)
    check_error(definitions, member_client.post(f"/challenge/plons/{older['id']}/ongedaan"), 409)

    # Someone else's dip is answered like a missing one.
    stranger = Client()
    stranger.force_login(other_member)
    check_error(definitions, stranger.post(f"/challenge/plons/{older['id']}", {"spot": "Pier"}), 404)
    check_error(definitions, stranger.get("/admin/api/gebruikers"), 403)

    # A lost session: where to sign in again.
    for url in ("/challenge/plons", "/admin/api/uitnodigingen/nieuw"):
        assert "login_url" in check_error(definitions, Client().post(url), 401)

    # Django's own refusals answer the islands the same way (config/views.py).
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(member)
    check_error(definitions, strict.post("/challenge/plons", HTTP_ACCEPT="application/json"), 403)


@pytest.mark.django_db
def test_whatever_breaks_in_a_json_endpoint_is_the_error_body(definitions, member, monkeypatch):
    """apps.core.errors.json_endpoint: a crash is a 500 and a lost race a 409, both in the islands' body."""
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    client = Client(raise_request_exception=False)
    client.force_login(member)
    for failure, status in ((RuntimeError("storage down"), 500), (IntegrityError("duplicate key value"), 409)):

        def broken(failure=failure, **kwargs):
            raise failure

        monkeypatch.setattr(challenge_views, "dip_register", broken)
        check_error(definitions, client.post("/challenge/plons"), status)


@pytest.mark.django_db
def test_the_admin_refusals_are_the_error_body(definitions, admin_client):
    check_error(definitions, post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": "geen adres"}), 400)
    check_error(definitions, admin_client.post("/admin/api/uitnodigingen/999999/verwijderen"), 404)
    export = admin_client.get("/admin/nieuwsbrief.csv", HTTP_ACCEPT="text/csv, application/json")
    check_error(definitions, export, 404)


@pytest.mark.django_db
def test_the_waterkant_props_and_answers_match_the_types(definitions, member):
    """Aan de waterkant: the page's props, and a tap's answer with a member in the water and a guest out."""
    import datetime
    import uuid

    from django.utils import timezone

    from tests.factories import EventFactory, EventParticipantFactory, OrganiserFactory

    now = timezone.localtime()
    swim = EventFactory(event_date=max(now - datetime.timedelta(minutes=30), now.replace(hour=0, minute=0)))
    EventParticipantFactory(event=swim, user=member)
    phone = Client()
    phone.force_login(OrganiserFactory())
    check(definitions, "WaterkantProps", island_data(phone.get(f"/events/{swim.pk}/waterkant"), "waterkant-data"))
    spot = f"nieuw-{uuid.uuid4()}"
    for body in (
        {"swimmer": spot, "kind": "gast", "tapped_at": now.isoformat(), "first_name": "Noor"},
        {"swimmer": spot, "kind": "in", "tapped_at": now.isoformat()},
        {"swimmer": spot, "kind": "uit", "tapped_at": now.isoformat()},
        {"swimmer": f"lid-{member.pk}", "kind": "in", "tapped_at": now.isoformat()},
    ):
        answer = phone.post(f"/events/{swim.pk}/waterkant/tik", json.dumps(body), content_type="application/json")
        assert answer.status_code == 200, answer.content
        check(definitions, "ShoreState", answer.json())
    answer = phone.post(f"/events/{swim.pk}/waterkant/dicht", "{}", content_type="application/json")
    check_error(definitions, answer, 409)


@pytest.mark.django_db
def test_samen_plonsen_s_props_and_answers_match_the_types(definitions, member, member_client, other_member):
    """apps.together on the stamp card: its props, the clubmates of "Met wie?", the briefing's answer, and
    a dip with a buddy (whose answer carries no advice) and one without (the calm line)."""
    import datetime

    from django.utils import timezone

    from apps.together.services import meetup_join, meetup_propose

    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    check(definitions, "TogetherData", island_data(member_client.get("/challenge"), "together-data"))
    soon = timezone.now() + datetime.timedelta(hours=1)
    meetup = meetup_propose(user=other_member, starts_at=soon, place="Sloterplas")
    meetup_join(user=member, meetup_id=meetup.pk)
    together = island_data(member_client.get("/challenge"), "together-data")
    assert [mate["name"] for mate in together["meetup"]["mates"]] == ["Otto Ander"]
    check(definitions, "TogetherData", together)
    candidates = member_client.get("/samen/clubgenoten").json()
    assert [row["name"] for row in candidates["candidates"]] == ["Otto Ander"]
    check(definitions, "BuddyCandidatesResponse", candidates)
    check(definitions, "BriefingReadResponse", member_client.post("/veilig/gelezen").json())
    alone = member_client.post("/challenge/plons").json()
    assert alone["advice"] is not None
    check(definitions, "RegisterDipResponse", alone)


def test_every_payload_type_met_a_real_answer_and_what_is_always_sent_is_required(definitions, request):
    """Runs last: every type of the schema (the exported ones and those they use) was checked against a
    real answer above, and no property is optional in TypeScript that every one of those answers had."""
    module = sys.modules[__name__]
    scenarios = {name for name in dir(module) if name.startswith("test_")} - {request.node.name}
    selected = {item.name for item in request.session.items if item.module is module}
    if not scenarios <= selected:
        pytest.skip("checks what the whole module met: run all of tests/test_payload_contract.py")
    never_met = sorted(set(definitions) - set(MET))
    assert not never_met, f"TypeScript payload types no real answer was checked against: {never_met}"

    always_sent = []
    for name, definition in definitions.items():
        objects = [value for value in MET[name] if isinstance(value, dict)]
        always_sent += optional_yet_always_sent(definition, objects, name)
    assert not always_sent, f"optional in TypeScript, yet every answer has it (make them required): {always_sent}"


def optional_yet_always_sent(schema: dict, values: list[dict], path: str) -> list[str]:
    """The optional properties of an object schema (and of the objects written inside it) that every value has."""
    found = []
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    for key, inner in sorted(properties.items()):
        if values and key not in required and all(key in value for value in values):
            found.append(f"{path}.{key}")
        if "properties" in inner:
            inside = [value[key] for value in values if isinstance(value.get(key), dict)]
            found += optional_yet_always_sent(inner, inside, f"{path}.{key}")
    return found


def post_json(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")
