"""One error type, one JSON endpoint wrapper (apps/core/errors.py): each kind of failure becomes the islands'
error body with its status, whatever the request asked for, and every JSON endpoint of the URL conf is wrapped."""

import json
import logging

import pytest
from django.core.exceptions import PermissionDenied, RequestDataTooBig, ValidationError
from django.db import IntegrityError
from django.http import Http404, JsonResponse
from django.test import Client, RequestFactory

import apps.challenges.views.challenge as challenge_views
from apps.accounts.refusals import AccountRefusal
from apps.accounts.removal import AccountDeletionError, AdminActionError
from apps.adminpanel.keyset import ListQueryError
from apps.adminpanel.refusals import AdminRefusal
from apps.challenges.conditions import ConditionsError
from apps.challenges.models import Challenge, Dip
from apps.challenges.photos import PhotoBusyError, PhotoError
from apps.challenges.refusals import DipRefusal
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.errors import (
    ChallengeCompletedError,
    ChallengeError,
    ChallengePermissionError,
    DipNotFoundError,
)
from apps.core.errors import (
    MESSAGE_BAD_REQUEST,
    MESSAGE_CONFLICT,
    MESSAGE_FORBIDDEN,
    MESSAGE_NOT_FOUND,
    MESSAGE_SERVER_ERROR,
    CoreRefusal,
    DomainError,
    NotFoundError,
    json_endpoint,
)
from apps.events.refusals import EventRefusal
from apps.events.services import EventAlreadyJoined, EventError, EventFull
from apps.notifications.refusals import NotificationRefusal
from apps.notifications.services import MailError
from tests.security.test_authorization_matrix import PATTERNS, decision_for

JSON_DECISIONS = {"member_json", "admin_json"}


def answer_of(exception: Exception) -> JsonResponse:
    @json_endpoint
    def view(request):
        raise exception

    return view(RequestFactory().post("/ergens"))


def body(response) -> dict:
    return json.loads(response.content)


# --- each kind of error: its status and its body -------------------------------------------------------------

DOMAIN_ERRORS = [
    (DomainError("Dat klopt niet.", code=CoreRefusal.BAD_REQUEST), 400),
    (NotFoundError("Niet gevonden.", code=CoreRefusal.NOT_FOUND), 404),
    (DomainError("Te snel.", code=DipRefusal.PHOTO_RATE, status=429), 429),
    (ChallengeError("Je hebt geen actieve challenge.", code=DipRefusal.NO_CARD), 409),
    (ChallengePermissionError("Niet jouw challenge.", code=DipRefusal.NOT_YOURS), 409),
    (ChallengeCompletedError("Je kaart is al vol.", code=DipRefusal.COMPLETED_KEPT), 409),
    (DipNotFoundError("Deze plons bestaat niet.", code=DipRefusal.DIP_UNKNOWN), 404),
    (PhotoError("Dit bestand is geen foto.", code=DipRefusal.PHOTO_NOT_AN_IMAGE), 400),
    (PhotoError("Deze foto is te groot.", code=DipRefusal.PHOTO_TOO_LARGE, status=413), 413),
    (PhotoBusyError("Het is even erg druk.", code=DipRefusal.PHOTO_BUSY), 503),
    (EventError("Dit event is voorbij.", code=EventRefusal.PAST), 409),
    (EventAlreadyJoined(), 409),
    (EventFull(), 409),
    (MailError("Deze uitnodiging is al gebruikt.", code=NotificationRefusal.INVITATION_NOT_ACTIVE), 409),
    (AccountDeletionError("Je bent de laatste admin.", code=AccountRefusal.LAST_ADMIN), 409),
    (AdminActionError("Je kunt je eigen account niet verwijderen.", code=AccountRefusal.SELF_DELETE), 409),
    (ListQueryError("Zoekterm is te lang.", code=AdminRefusal.BAD_SEARCH), 400),
]


@pytest.mark.parametrize(
    ("error", "status"),
    DOMAIN_ERRORS,
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else f"{value}",
)
def test_a_domain_error_is_its_status_its_dutch_message_and_its_code(error, status):
    assert isinstance(error, DomainError)
    response = answer_of(error)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert body(response) == {"error": str(error), "code": str(error.code)}


def test_a_domain_error_without_a_code_is_refused_when_it_is_made():
    with pytest.raises(TypeError):
        DomainError("Dat klopt niet.")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="refusal enum"):
        DomainError("Dat klopt niet.", code="bad_request")  # type: ignore[arg-type]


def test_field_errors_travel_with_the_first_message_for_the_toast():
    fields = {"water_temperature": "Vul een watertemperatuur in.", "note": "De notitie is te lang."}
    response = answer_of(ConditionsError(fields))
    assert response.status_code == 400
    assert body(response) == {"error": "Vul een watertemperatuur in.", "code": "conditions_invalid", "fields": fields}


def test_a_validation_error_is_a_400_with_its_first_message():
    response = answer_of(ValidationError(["Vul een geldig e-mailadres in.", "Nog iets."]))
    assert (response.status_code, body(response)) == (
        400,
        {"error": "Vul een geldig e-mailadres in.", "code": "invalid"},
    )


def test_a_lost_race_is_a_409(caplog):
    caplog.set_level(logging.WARNING, logger="koud.errors")
    response = answer_of(IntegrityError("duplicate key value violates unique constraint"))
    assert (response.status_code, body(response)) == (409, {"error": MESSAGE_CONFLICT, "code": "conflict"})
    assert any(record.name == "koud.errors" for record in caplog.records)


@pytest.mark.parametrize(
    ("exception", "status", "message", "code"),
    [
        (Http404("no such thing"), 404, MESSAGE_NOT_FOUND, "not_found"),
        (PermissionDenied(), 403, MESSAGE_FORBIDDEN, "forbidden"),
        (RequestDataTooBig("too big"), 400, MESSAGE_BAD_REQUEST, "bad_request"),
        (RuntimeError("storage down"), 500, MESSAGE_SERVER_ERROR, "server_error"),
        (KeyError("photo"), 500, MESSAGE_SERVER_ERROR, "server_error"),
    ],
    ids=["404", "403", "400", "crash", "bug"],
)
def test_whatever_else_breaks_is_json_with_djangos_status(exception, status, message, code):
    # No Accept header: the endpoint answers JSON on its own, not because the request asked for it.
    response = answer_of(exception)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert body(response) == {"error": message, "code": code}


def test_a_crash_is_still_logged_with_its_trace(caplog):
    caplog.set_level(logging.ERROR, logger="django.request")
    answer_of(RuntimeError("storage down"))
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info is not None and "storage down" in str(record.exc_info[1])


def test_an_answer_passes_untouched():
    @json_endpoint
    def view(request):
        return JsonResponse({"message": "Plons geregistreerd."}, status=201)

    response = view(RequestFactory().get("/"))
    assert (response.status_code, body(response)) == (201, {"message": "Plons geregistreerd."})


@pytest.mark.django_db
def test_a_real_endpoint_that_breaks_answers_json_even_when_json_was_not_asked_for(member, monkeypatch):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)

    def broken(**kwargs):
        raise RuntimeError("storage down")

    monkeypatch.setattr(challenge_views, "dip_register", broken)
    client = Client(raise_request_exception=False)
    client.force_login(member)
    response = client.post("/challenge/plons")  # no Accept header, no CSRF header: a bare form post
    assert response.status_code == 500
    assert body(response) == {"error": MESSAGE_SERVER_ERROR, "code": "server_error"}
    assert not Dip.objects.exists()


# --- every JSON endpoint is wrapped ----------------------------------------------------------------------------


def json_patterns():
    """The JSON endpoints of the URL conf: by their access decision (tests/security/test_authorization_matrix.py)
    or by their JSON access decorator (`answers_json`, set by member_required_json and admin_required_json)."""
    return [
        pattern
        for pattern in PATTERNS
        if decision_for(pattern) in JSON_DECISIONS or getattr(pattern.pattern.callback, "answers_json", False)
    ]


def test_every_json_endpoint_is_wrapped_by_json_endpoint():
    patterns = json_patterns()
    names = {pattern.name for pattern in patterns}
    assert {"dip_register", "dip_update", "dip_undo", "adminpanel_users", "adminpanel_user_delete"} <= names
    unwrapped = [pattern.route for pattern in patterns if not getattr(pattern.pattern.callback, "json_endpoint", False)]
    assert not unwrapped, f"JSON endpoints without @json_endpoint: {unwrapped}"
