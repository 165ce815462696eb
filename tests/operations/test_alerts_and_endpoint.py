"""Issue 32 §4: one mail to the admins when something turns red (not one per look), GET /status for uptime
monitors behind STATUS_TOKEN, and `manage.py alive` for the containers' health checks."""

import datetime

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from apps.notifications.models import Mail
from apps.operations.heartbeat import heartbeat_beat, heartbeat_stop
from apps.operations.jobs import JOBS
from apps.operations.models import Heartbeat, JobRun, StatusAlert
from apps.operations.selectors import app_version
from apps.operations.status import status_refresh

from .test_status import make_backup

pytestmark = pytest.mark.django_db


@pytest.fixture
def all_well(settings, tmp_path):
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.BACKUP_DIR.mkdir()
    for kind in Heartbeat.Kind:
        heartbeat_beat(kind=kind)
    now = timezone.now()
    JobRun.objects.bulk_create([JobRun(job=job.name, started_at=now, finished_at=now, ok=True) for job in JOBS])
    make_backup(settings.BACKUP_DIR)


def test_one_mail_to_each_admin_when_something_turns_red_and_not_while_it_stays_red(all_well, admin_user, member):
    call_command("check_status", "--quiet")
    assert mail.outbox == [] and not StatusAlert.objects.exists()

    heartbeat_stop(kind=Heartbeat.Kind.WORKER)  # the worker stopped
    call_command("check_status", "--quiet")
    assert [message.to for message in mail.outbox] == [[admin_user.email]]  # not the member
    message = mail.outbox[0]
    assert message.subject == "Systeemstatus: er is iets gestopt"
    assert "De e-mailworker draait niet sinds" in message.body and "/admin#systeemstatus" in message.body
    # Sent by the scheduler's own look, through the project's mail rows: the worker is the one that stopped.
    assert Mail.objects.get(to_email=admin_user.email).status == Mail.Status.SENT

    for _look in range(3):
        call_command("check_status", "--quiet")
    assert len(mail.outbox) == 1

    heartbeat_beat(kind=Heartbeat.Kind.WORKER)  # back: green, forgotten
    call_command("check_status", "--quiet")
    assert not StatusAlert.objects.exists() and len(mail.outbox) == 1
    heartbeat_stop(kind=Heartbeat.Kind.WORKER)  # stopped again: a new mail
    call_command("check_status", "--quiet")
    assert len(mail.outbox) == 2


def test_a_second_check_turning_red_is_mailed_with_every_red_line(all_well, admin_user, settings):
    heartbeat_stop(kind=Heartbeat.Kind.WORKER)
    call_command("check_status", "--quiet")
    for path in settings.BACKUP_DIR.iterdir():
        path.unlink()
    call_command("check_status", "--quiet")
    assert len(mail.outbox) == 2
    body = mail.outbox[1].body
    assert "De e-mailworker draait niet sinds" in body and "Er is nog nooit een back-up gemaakt" in body


# --- GET /status ----------------------------------------------------------------------------------------


def test_status_is_not_there_without_a_token_setting(client, admin_client, settings):
    settings.STATUS_TOKEN = ""
    assert client.get("/status", HTTP_AUTHORIZATION="Bearer ").status_code == 404
    assert admin_client.get("/status").status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer fout", "Bearer geheim-token-x", "geheim-token", "Basic Z2VoZWlt"])
def test_status_refuses_a_missing_or_wrong_token(client, admin_client, settings, header):
    settings.STATUS_TOKEN = "geheim-token"
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    for who in (client, admin_client):  # a session is not a token
        response = who.get("/status", **extra)
        assert response.status_code == 403
        assert "token" in response.content.decode()


def test_status_answers_the_monitor_200_when_green_and_503_with_the_red_lines(client, all_well, settings):
    settings.STATUS_TOKEN = "geheim-token"
    auth = {"HTTP_AUTHORIZATION": "Bearer geheim-token"}
    response = client.get("/status", **auth)
    assert response.status_code == 200
    text = response.content.decode()
    assert text.startswith("ok\n") and f"Versie: {app_version()}" in text
    assert response["Content-Type"].startswith("text/plain") and "no-cache" in response["Cache-Control"]

    Heartbeat.objects.filter(kind="scheduler").update(seen_at=timezone.now() - datetime.timedelta(hours=1))
    status_refresh()  # the status job's next look (/status serves the facts of the last minute)
    response = client.get("/status", **auth)
    assert response.status_code == 503
    assert response.content.decode().splitlines()[:2][0] == "rood"
    assert "ROOD: De planner draait niet sinds" in response.content.decode()
    assert client.post("/status", **auth).status_code == 405


# --- manage.py alive --------------------------------------------------------------------------------------


def _alive(*args) -> int:
    try:
        call_command("alive", *args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_alive_is_true_while_a_process_of_that_kind_beats_on_this_machine(capsys):
    assert _alive("worker") == 1
    assert "Er draait geen taakworker op deze machine" in capsys.readouterr().err
    heartbeat_beat(kind=Heartbeat.Kind.WORKER)
    assert _alive("worker") == 0
    assert _alive("scheduler") == 1
    Heartbeat.objects.filter(kind="worker").update(seen_at=timezone.now() - datetime.timedelta(minutes=3))
    assert _alive("worker") == 1
    assert "De taakworker op deze machine draait niet sinds" in capsys.readouterr().err
    Heartbeat.objects.create(kind="worker", host="een-andere-machine", pid=1)
    assert _alive("worker") == 1  # another container's worker does not make this one healthy
    assert _alive("worker", "--any-host") == 0
