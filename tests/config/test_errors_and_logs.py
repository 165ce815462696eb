"""Whatever breaks in a JSON endpoint, the island gets Dutch JSON; a lost race is a 409; log lines cannot be forged."""

import logging
import sys

import pytest
from django.conf import settings
from django.db import IntegrityError
from django.test import Client

import apps.adminpanel.views.api as admin_api
import apps.challenges.views.challenge as challenge_views
from apps.challenges.models import Challenge, Dip
from apps.challenges.services.cards import challenge_start
from config.logging import SafeFormatter, escape_control_characters

pytestmark = pytest.mark.django_db

MESSAGE_SERVER_ERROR = "Aan onze kant ging er iets fout. Probeer het over een paar minuten opnieuw."
MESSAGE_CONFLICT = "Iemand anders wijzigde dit net tegelijk met jou. Laad de pagina opnieuw en probeer het nog eens."


@pytest.fixture
def as_in_production(admin_user, member):
    """A client that gets the answer a browser would get, instead of the exception."""

    def client_for(user):
        client = Client(raise_request_exception=False)
        client.force_login(user)
        return client

    return client_for


def broken(*args, **kwargs):
    raise RuntimeError("storage down")


def test_an_admin_json_endpoint_that_breaks_answers_dutch_json(as_in_production, admin_user, monkeypatch):
    monkeypatch.setattr(admin_api, "users_page", broken)
    response = as_in_production(admin_user).get("/admin/api/gebruikers", HTTP_ACCEPT="application/json")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": MESSAGE_SERVER_ERROR, "code": "server_error"}


def test_the_dip_endpoint_that_breaks_answers_dutch_json(as_in_production, member, monkeypatch):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    monkeypatch.setattr(challenge_views, "dip_register", broken)
    response = as_in_production(member).post("/challenge/plons", HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN="x")
    assert response.status_code == 500
    assert response.json() == {"error": MESSAGE_SERVER_ERROR, "code": "server_error"}


def test_a_page_that_breaks_still_gets_the_html_page(as_in_production, member, monkeypatch):
    monkeypatch.setattr("apps.challenges.views.dashboard.dashboard_for", broken)
    response = as_in_production(member).get("/dashboard")
    assert response.status_code == 500
    assert "Er ging iets mis" in response.content.decode()


def lost_race(**kwargs):
    raise IntegrityError('duplicate key value violates unique constraint "dip_number_unique_per_card"')


def test_a_lost_race_on_a_json_endpoint_is_a_409_in_dutch(as_in_production, member, monkeypatch):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    monkeypatch.setattr(challenge_views, "dip_register", lost_race)
    response = as_in_production(member).post("/challenge/plons", HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    assert response.json() == {"error": MESSAGE_CONFLICT, "code": "conflict"}
    assert not Dip.objects.exists()


def test_a_lost_race_on_a_form_is_a_409_page_in_dutch(as_in_production, member, monkeypatch):
    monkeypatch.setattr("apps.challenges.views.dashboard.challenge_start", lost_race)
    response = as_in_production(member).post("/challenge/start", {"challenge_id": "1"})
    assert response.status_code == 409
    assert MESSAGE_CONFLICT in response.content.decode()


# --- log lines ---------------------------------------------------------------------------------------------


def test_a_cr_lf_in_a_404_path_cannot_forge_a_log_line(client, caplog):
    caplog.set_level(logging.WARNING, logger="koud.notfound")
    client.get("/nergens%0D%0A2026-11-23 12:00:00,000 INFO koud: admin logged in")
    formatter = SafeFormatter(settings.LOGGING["formatters"]["plain"]["format"], style="{")
    [record] = [r for r in caplog.records if r.name == "koud.notfound"]
    line = formatter.format(record)
    assert "\n" not in line and "\r" not in line
    assert "/nergens\\r\\n2026-11-23" in line


def test_the_configured_log_format_is_the_escaping_one():
    assert settings.LOGGING["formatters"]["plain"]["()"] == "config.logging.SafeFormatter"
    assert settings.LOGGING["handlers"]["console"]["formatter"] == "plain"


def test_a_traceback_quoting_input_stays_indented_under_its_record():
    formatter = SafeFormatter("{levelname} {name}: {message}", style="{")
    try:
        raise ValueError("bad input\nERROR koud: forged\x1b[31m")
    except ValueError:
        record = logging.LogRecord("koud", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    lines = formatter.format(record).split("\n")
    assert lines[0] == "ERROR koud: failed"
    assert all(line.startswith("    ") for line in lines[1:])
    assert "\x1b" not in "".join(lines)


@pytest.mark.parametrize(
    ("raw", "escaped"), [("a\r\nb", "a\\r\\nb"), ("tab\there", "tab\\there"), ("\u2028", "\\u2028"), ("é ok", "é ok")]
)
def test_control_characters_are_escaped_and_other_text_is_kept(raw, escaped):
    assert escape_control_characters(raw) == escaped
