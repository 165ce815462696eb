"""manage.py reset_second_factor EMAIL (issue 32): a last admin who lost the phone gets back in without a
Django shell. Every factor goes, the password signs in again, and /admin asks for a new factor."""

from io import StringIO

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from django.core.management import CommandError, call_command

from apps.accounts.second_factor import second_factor_reset
from apps.audit.services import AuditMeta
from tests.factories import DEFAULT_PASSWORD, AdminFactory, UserFactory

pytestmark = pytest.mark.django_db


def run(*args, answer: str | None = None, monkeypatch=None) -> str:
    if answer is not None:
        monkeypatch.setattr("builtins.input", lambda prompt: answer)
    out = StringIO()
    call_command("reset_second_factor", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def locked_out_admin():
    admin = AdminFactory(email="beheer@example.nl")  # an authenticator app
    RecoveryCodes.activate(admin)
    Authenticator.objects.create(user=admin, type=Authenticator.Type.WEBAUTHN, data={"name": "Oude telefoon"})
    return admin


def test_the_last_admin_signs_in_with_the_password_and_sets_up_a_new_factor(locked_out_admin, client):
    before = client.post("/auth", {"form": "inloggen", "login": "beheer@example.nl", "password": DEFAULT_PASSWORD})
    assert before["Location"] != "/dashboard"  # the second factor is asked first

    out = run("BEHEER@example.nl", "--yes")

    assert "De tweede factor van beheer@example.nl is gewist (1 passkey, de authenticator-app, de herstelcodes)" in out
    assert not Authenticator.objects.filter(user=locked_out_admin).exists()
    client.logout()
    after = client.post("/auth", {"form": "inloggen", "login": "beheer@example.nl", "password": DEFAULT_PASSWORD})
    assert after["Location"] == "/dashboard"
    assert client.get("/admin")["Location"] == "/account#tweede-factor"


def test_it_asks_first_and_wipes_nothing_without_ja(locked_out_admin, monkeypatch):
    with pytest.raises(CommandError, match="Niets gewist."):
        run("beheer@example.nl", answer="nee", monkeypatch=monkeypatch)
    assert Authenticator.objects.filter(user=locked_out_admin).count() == 3
    assert "is gewist" in run("beheer@example.nl", answer="ja", monkeypatch=monkeypatch)
    assert not Authenticator.objects.filter(user=locked_out_admin).exists()


def test_a_member_without_a_factor_and_an_unknown_address():
    member = UserFactory(email="marit@example.nl")
    assert run("marit@example.nl", "--yes") == "marit@example.nl had geen tweede factor; er is niets gewist.\n"
    assert second_factor_reset(user=member, meta=AuditMeta.command("test")) == {}
    with pytest.raises(CommandError, match="Geen account met e-mailadres 'niemand@example.nl'"):
        run("niemand@example.nl", "--yes")


def test_only_that_members_factors_go(locked_out_admin):
    other = AdminFactory(email="kees@example.nl")
    run("beheer@example.nl", "--yes")
    assert Authenticator.objects.filter(user=other).count() == 1


def test_the_reset_is_in_the_audit_log_as_the_operators(locked_out_admin):
    from apps.audit.actions import AuditAction
    from apps.audit.models import AuditEntry

    run("beheer@example.nl", "--yes")

    entry = AuditEntry.objects.get(action=AuditAction.SECOND_FACTOR_RESET)
    assert (entry.actor_label, entry.target_type, entry.target_id) == (
        "manage.py reset_second_factor",
        "user",
        locked_out_admin.pk,
    )
