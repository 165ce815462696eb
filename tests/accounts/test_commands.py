from io import StringIO

import pytest
from allauth.mfa.totp.internal.auth import TOTP
from django.core.management import CommandError, call_command

from apps.accounts.models import User
from tests.factories import TOTP_SECRET, AdminFactory, UserFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- grant_admin / revoke_admin ---------------------------------------------------------------


def test_grant_and_revoke_admin(member, admin_user):  # admin_user: the club keeps an active admin
    assert "is nu admin" in run("grant_admin", "MARIT@example.nl")
    assert User.objects.get(pk=member.pk).has_admin_role
    assert "was al admin" in run("grant_admin", "marit@example.nl")
    assert "is geen admin meer" in run("revoke_admin", "marit@example.nl")
    assert not User.objects.get(pk=member.pk).has_admin_role
    assert "was geen admin" in run("revoke_admin", "marit@example.nl")


def test_revoke_admin_keeps_the_last_active_admin(admin_user):
    with pytest.raises(CommandError, match="Je kunt de admin-rol van de laatste actieve admin niet intrekken."):
        run("revoke_admin", admin_user.email)
    assert User.objects.get(pk=admin_user.pk).has_admin_role
    AdminFactory(email="kees@example.nl")
    assert "is geen admin meer" in run("revoke_admin", admin_user.email)


@pytest.mark.parametrize("command", ["grant_admin", "revoke_admin"])
def test_admin_commands_refuse_an_unknown_address(command):
    with pytest.raises(CommandError, match="Geen account met e-mailadres 'niemand@example.nl'"):
        run(command, "niemand@example.nl")


# --- createsuperuser --------------------------------------------------------------------------


def test_createsuperuser_without_prompts_makes_an_admin_who_logs_in_by_email(monkeypatch, client):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "beheer-123")
    run("createsuperuser", "--noinput", "--email", "Beheer@Koud.NL", "--full_name", "Beheerder")
    user = User.objects.get()
    assert (user.email, user.full_name) == ("beheer@koud.nl", "Beheerder")
    assert user.has_admin_role and not user.is_staff  # the role; the power comes with a second factor
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
