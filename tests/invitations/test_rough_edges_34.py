"""Issue 34 §6: a bulk paste names the addresses it could not read; invitation codes have no look-alikes."""

import json

import pytest

from apps.invitations.models import Invitation
from apps.invitations.parsing import unreadable_addresses
from apps.invitations.services import (
    CODE_ALPHABET,
    invitation_code_generate,
    invitation_validate,
)
from tests.factories import InvitationFactory


def _bulk(client, text: str):
    return client.post(
        "/admin/api/uitnodigingen/bulk", data=json.dumps({"text": text}), content_type="application/json"
    )


def test_the_broken_addresses_of_a_paste_are_found_as_pasted():
    text = "jan@example.nl, fleur @ example.nl; hanna@example..nl\npiet@example.nl. geen adres"
    assert unreadable_addresses(text) == ["fleur @ example.nl", "hanna@example..nl"]
    assert unreadable_addresses("jan@example.nl, piet@example.nl.") == []


@pytest.mark.django_db
def test_the_bulk_invitation_names_what_it_could_not_read(admin_client):
    response = _bulk(admin_client, "jan@example.nl\nfleur @ example.nl\nhanna@example..nl\npiet@example.nl")
    data = response.json()
    assert response.status_code == 201, data
    assert sorted(row["email"] for row in data["invitations"]) == ["jan@example.nl", "piet@example.nl"]
    assert data["message"] == (
        "2 uitnodigingen aangemaakt. Niet te lezen, dus niet uitgenodigd: fleur @ example.nl, hanna@example..nl."
    )


@pytest.mark.django_db
def test_a_paste_of_only_broken_addresses_says_which(admin_client):
    response = _bulk(admin_client, "fleur @ example.nl, hanna@example..nl")
    assert response.status_code == 400
    assert response.json()["error"] == (
        "Geen geldige email adressen gevonden. Niet te lezen, dus niet uitgenodigd: fleur @ example.nl, "
        "hanna@example..nl."
    )
    assert not Invitation.objects.exists()


def test_codes_are_eight_uppercase_letters_and_digits_without_look_alikes():
    assert not set(CODE_ALPHABET) & set("O0I1")
    codes = [invitation_code_generate() for _ in range(2000)]
    for code in codes:
        assert len(code) == 8 and code.isascii() and code.isalnum() and code == code.upper()
        assert not set(code) & set("O0I1"), code


@pytest.mark.django_db
def test_an_existing_code_with_look_alikes_still_works():
    InvitationFactory(code="OI01ABCD")
    assert invitation_validate(code="oi01abcd", email="nieuw@example.nl").is_valid
