"""Who may use which /admin page: each view declares the least role it needs (`staff_role`, StaffRole in
apps/accounts/access.py) and this test walks every /admin URL pattern. The organiser ("Organisator") gets
the events pages, attendance and club messages; everything else (members, exports of addresses, roles,
photos, invitations, the Django admin) stays with admins."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import URLPattern, URLResolver, get_resolver

from apps.accounts.access import MESSAGE_NO_ADMIN, StaffRole
from apps.accounts.models import User, UserRole
from apps.accounts.second_factor import MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED
from apps.audit.actions import AuditAction
from apps.audit.models import AuditEntry
from tests.factories import AdminFactory, EventFactory, OrganiserFactory, UserFactory

pytestmark = pytest.mark.django_db

# The organiser's pages, said once here so that a view that starts to declare the organiser shows in review.
ORGANISER_PAGES = {
    "adminpanel",  # the admin's screen; for an organiser, her own screens (issue 47 §6)
    "adminpanel_events",
    "adminpanel_event_new",
    "adminpanel_event",
    "adminpanel_event_edit",
    "adminpanel_event_cancel",
    "adminpanel_event_attendance",
    "adminpanel_event_lists_csv",
    "adminpanel_event_lists_xlsx",
    "adminpanel_club_message",
}


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


ADMIN_PATTERNS = [(route, p) for route, p in _walk(get_resolver().url_patterns) if route.split("/")[0] == "admin"]


def test_every_admin_view_declares_the_role_it_needs():
    assert len(ADMIN_PATTERNS) > 20
    undeclared = [
        route for route, p in ADMIN_PATTERNS if not isinstance(getattr(p.callback, "staff_role", None), StaffRole)
    ]
    assert not undeclared, (
        f"/admin views without a declared staff role (admin_required / organiser_required): {undeclared}"
    )
    organiser = {p.name for _route, p in ADMIN_PATTERNS if p.callback.staff_role is StaffRole.ORGANISER}
    assert organiser == ORGANISER_PAGES


def test_an_organiser_opens_the_events_pages_and_nothing_else_of_admin(client):
    organiser = OrganiserFactory()
    event = EventFactory()
    client.force_login(organiser)
    assert client.get("/admin/events/").status_code == 200
    assert client.get(f"/admin/events/{event.pk}").status_code == 200
    assert client.get("/admin/clubbericht/").status_code == 200
    assert client.get("/admin").status_code == 200  # her screens: tests/adminpanel/test_organiser_flow.py
    for url in ("/admin/nieuwsbrief.csv", "/admin/gebruikers.xlsx", "/admin/fysieke-badges/", "/admin/logboek/"):
        response = client.get(url)
        assert response["Location"] == "/dashboard", url
    assert client.get("/admin/api/gebruikers").status_code == 403
    assert client.get("/admin/api/fotos").status_code == 403
    assert client.get("/django-admin/")["Location"].startswith("/django-admin/login/")
    page = client.get("/dashboard").content.decode()
    assert 'href="/admin">Organiseren</a>' in page and 'href="/admin">Admin</a>' not in page


def test_an_organiser_without_a_second_factor_is_sent_to_set_one_up(client):
    client.force_login(OrganiserFactory(second_factor=False))
    response = client.get("/admin/events/")
    assert response["Location"] == "/account#tweede-factor"
    assert MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED in [str(m) for m in response.wsgi_request._messages]
    # Outside /admin a member, like an admin without a factor.
    assert "Organiseren" not in client.get("/dashboard").content.decode()


def test_a_member_is_refused_on_the_organisers_pages(client):
    client.force_login(UserFactory())
    response = client.get("/admin/events/")
    assert response["Location"] == "/dashboard"
    assert MESSAGE_NO_ADMIN in [str(m) for m in response.wsgi_request._messages]


def test_an_admin_makes_a_member_organiser_on_the_users_table_and_back(client):
    admin, member = AdminFactory(), UserFactory(full_name="Olga Organisator")
    client.force_login(admin)
    url = f"/admin/api/gebruikers/{member.pk}/organisator"
    response = client.post(url, {"organiser": True}, content_type="application/json", REMOTE_ADDR="203.0.113.9")
    assert response.status_code == 200
    assert response.json()["message"] == "Olga Organisator is nu organisator."
    assert response.json()["user"]["isOrganiser"] is True
    assert User.objects.get(pk=member.pk).has_organiser_role
    entry = AuditEntry.objects.get(action=AuditAction.ROLE_GRANTED)
    assert (entry.actor_id, entry.target_id, entry.detail, entry.ip) == (
        admin.pk,
        member.pk,
        "organiser",
        "203.0.113.9",
    )
    response = client.post(url, {"organiser": False}, content_type="application/json")
    assert response.json()["message"] == "Olga Organisator is geen organisator meer."
    assert not User.objects.get(pk=member.pk).has_organiser_role
    assert AuditEntry.objects.filter(action=AuditAction.ROLE_REVOKED, target_id=member.pk).count() == 1
    assert (
        client.post(url, {"organiser": "ja"}, content_type="application/json").json()["code"] == "organiser_request_bad"
    )
    assert (
        client.post(
            "/admin/api/gebruikers/999999/organisator", {"organiser": True}, content_type="application/json"
        ).status_code
        == 404
    )


def test_an_organiser_cannot_make_organisers():
    organiser, member = OrganiserFactory(), UserFactory()
    from django.test import Client

    client = Client()
    client.force_login(organiser)
    response = client.post(
        f"/admin/api/gebruikers/{member.pk}/organisator", {"organiser": True}, content_type="application/json"
    )
    assert response.status_code == 403
    assert not UserRole.objects.filter(user=member).exists()
    assert not AuditEntry.objects.exists()


def test_grant_and_revoke_organiser_commands(capsys):
    member = UserFactory(email="olga@example.nl")
    call_command("grant_organiser", "OLGA@example.nl")
    assert capsys.readouterr().out.strip() == "olga@example.nl is nu organisator."
    call_command("grant_organiser", "olga@example.nl")
    assert capsys.readouterr().out.strip() == "olga@example.nl was al organisator."
    assert User.objects.get(pk=member.pk).has_organiser_role
    entry = AuditEntry.objects.get(action=AuditAction.ROLE_GRANTED)
    assert (entry.actor_id, entry.actor_label, entry.ip) == (None, "manage.py grant_organiser", None)
    call_command("revoke_organiser", "olga@example.nl")
    assert capsys.readouterr().out.strip() == "olga@example.nl is geen organisator meer."
    call_command("revoke_organiser", "olga@example.nl")
    assert capsys.readouterr().out.strip() == "olga@example.nl was geen organisator."
    with pytest.raises(CommandError, match="Geen account met e-mailadres"):
        call_command("grant_organiser", "niemand@example.nl")
