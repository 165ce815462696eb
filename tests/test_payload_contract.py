"""The contract between the server and the islands: what the views send must match the TypeScript types.

The JSON Schema is generated from the TypeScript payload types on every run (`npm run schema` in
frontend/, ts-json-schema-generator), and real answers of the views are checked against it with
`jsonschema`: a key renamed, added or dropped on either side without the other fails here.
"""

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

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


def check(definitions: dict, type_name: str, payload) -> None:
    assert type_name in definitions, f"no TypeScript type {type_name} in the generated schema"
    schema = {"$ref": f"#/definitions/{type_name}", "definitions": definitions}
    jsonschema.Draft7Validator(schema).validate(payload)


def island_data(response, element_id: str) -> dict:
    html = response.content.decode()
    start = html.index(f'id="{element_id}"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


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
    check(definitions, "UserDeleted", admin_client.post(f"/admin/api/gebruikers/{other.pk}/verwijderen").json())


@pytest.mark.django_db
def test_a_renamed_key_breaks_the_contract(definitions, member, member_client):
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    answer = member_client.post("/challenge/plons").json()
    answer["dip_count"] = answer.pop("dipCount")
    with pytest.raises(jsonschema.ValidationError):
        check(definitions, "RegisterDipResponse", answer)


def post_json(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")
