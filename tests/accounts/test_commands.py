import datetime
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from allauth.mfa.totp.internal.auth import TOTP
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

from apps.accounts.models import User
from apps.invitations.models import Invitation
from tests.factories import TOTP_SECRET, InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- create_invitation ------------------------------------------------------------------------


@override_settings(SITE_URL="https://koud.example/")
def test_create_invitation_prints_the_code_with_its_full_link():
    output = run("create_invitation")
    invitation = Invitation.objects.get()
    assert invitation.email is None
    assert output.strip() == f"{invitation.code}  https://koud.example/auth?invite={invitation.code}"


def test_create_invitation_count_makes_several():
    lines = run("create_invitation", "--count", "3").strip().splitlines()
    assert len(lines) == 3 == Invitation.objects.count()
    assert all(re.fullmatch(r"[A-Z0-9]{8}  http\S+/auth\?invite=[A-Z0-9]{8}", line) for line in lines)


def test_create_invitation_for_one_address():
    run("create_invitation", "--email", "Nieuw@Example.nl")
    assert Invitation.objects.get().email == "nieuw@example.nl"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "abc"], "--count moet een heel getal zijn"),
        (["--count", "0"], "--count moet tussen 1 en 500 liggen"),
        (["--count", "-2"], "--count moet tussen 1 en 500 liggen"),
        (["--count", "501"], "--count moet tussen 1 en 500 liggen"),
        (["--email", "geen-adres"], "Vul een geldig e-mailadres in"),
        (["--email", "a@b.nl", "--count", "2"], "kan maar één keer gebruikt worden"),
        (["--email", "MARIT@example.nl"], "heeft al een account"),
    ],
)
def test_create_invitation_refuses_bad_input(member, args, message):
    with pytest.raises(CommandError, match=message):
        run("create_invitation", *args)
    assert not Invitation.objects.exists()


def test_a_bad_count_exits_non_zero_from_the_command_line():
    result = subprocess.run(
        [sys.executable, "manage.py", "create_invitation", "--count", "nul"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode != 0
    assert "--count moet een heel getal zijn" in result.stderr


# --- grant_admin / revoke_admin ---------------------------------------------------------------


def test_grant_and_revoke_admin(member):
    assert "is nu admin" in run("grant_admin", "MARIT@example.nl")
    assert User.objects.get(pk=member.pk).is_admin
    assert "was al admin" in run("grant_admin", "marit@example.nl")
    assert "is geen admin meer" in run("revoke_admin", "marit@example.nl")
    assert not User.objects.get(pk=member.pk).is_admin
    assert "was geen admin" in run("revoke_admin", "marit@example.nl")


@pytest.mark.parametrize("command", ["grant_admin", "revoke_admin"])
def test_admin_commands_refuse_an_unknown_address(command):
    with pytest.raises(CommandError, match="Geen account met e-mailadres 'niemand@example.nl'"):
        run(command, "niemand@example.nl")


# --- cleanup_invitations ----------------------------------------------------------------------


def test_cleanup_invitations_reports_how_many_were_deleted():
    long_ago = timezone.now() - datetime.timedelta(days=60)
    for _ in range(2):
        InvitationFactory(created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30))
    InvitationFactory()
    assert run("cleanup_invitations").strip() == "2 verlopen uitnodigingen verwijderd."
    assert Invitation.objects.count() == 1
    assert run("cleanup_invitations").strip() == "0 verlopen uitnodigingen verwijderd."


# --- createsuperuser --------------------------------------------------------------------------


def test_createsuperuser_without_prompts_makes_an_admin_who_logs_in_by_email(monkeypatch, client):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "beheer-123")
    run("createsuperuser", "--noinput", "--email", "Beheer@Koud.NL", "--full_name", "Beheerder")
    user = User.objects.get()
    assert (user.email, user.full_name) == ("beheer@koud.nl", "Beheerder")
    assert user.is_admin and user.is_staff
    response = client.post("/auth", {"form": "inloggen", "login": "beheer@koud.nl", "password": "beheer-123"})
    assert response["Location"] == "/dashboard"
    # The admin role needs a second factor before the admin pages open.
    assert client.get("/django-admin/")["Location"] == "/account#tweede-factor"
    TOTP.activate(user, TOTP_SECRET)
    assert client.get("/django-admin/").status_code == 200


def test_createsuperuser_refuses_an_address_that_exists(monkeypatch):
    UserFactory(email="beheer@koud.nl")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "beheer-123")
    with pytest.raises(CommandError):
        run("createsuperuser", "--noinput", "--email", "beheer@koud.nl", "--full_name", "Beheerder")
