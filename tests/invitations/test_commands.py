"""create_invitation prints codes with their links; cleanup_invitations removes the expired ones."""

import datetime
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

from apps.invitations.models import Invitation
from tests.factories import InvitationFactory

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


# --- cleanup_invitations ----------------------------------------------------------------------


def test_cleanup_invitations_reports_how_many_were_deleted():
    long_ago = timezone.now() - datetime.timedelta(days=60)
    for _ in range(2):
        InvitationFactory(created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30))
    InvitationFactory()
    assert run("cleanup_invitations").strip() == "2 verlopen uitnodigingen verwijderd."
    assert Invitation.objects.count() == 1
    assert run("cleanup_invitations").strip() == "0 verlopen uitnodigingen verwijderd."
