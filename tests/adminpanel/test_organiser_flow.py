"""Issue 47 §6: making a member organiser. The admin's dialog warns of the second factor (frontend
src/admin/users.test.tsx); she gets a Dutch mail saying what she can do now and how to set up that factor;
the way to the factor names her role; /admin then shows her exactly her screens; nobody makes themselves
organiser."""

import io
import re

import pytest
from django.core import mail as django_mail
from django.core.management import call_command
from django.urls import resolve

from apps.accounts.access import StaffRole
from apps.accounts.models import UserRole
from apps.accounts.second_factor import MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED, MESSAGE_SECOND_FACTOR_REQUIRED
from apps.adminpanel.notices import ORGANISER_APPOINTED
from apps.adminpanel.services import MESSAGE_ORGANISER_SELF
from apps.audit.models import AuditEntry
from apps.notifications.models import Mail
from tests.factories import AdminFactory, OrganiserFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def _make_organiser(client, user, organiser=True):
    return client.post(
        f"/admin/api/gebruikers/{user.pk}/organisator", {"organiser": organiser}, content_type="application/json"
    )


def _appoint_in_the_dialog(client, user):
    assert _make_organiser(client, user).status_code == 200


def _appoint_with_the_command(_client, user):
    call_command("grant_organiser", user.email, stdout=io.StringIO())


@pytest.mark.parametrize("appoint", [_appoint_in_the_dialog, _appoint_with_the_command])
def test_a_new_organiser_gets_a_dutch_mail_with_what_she_can_do_and_how_to_set_up_the_factor(client, appoint):
    """The same mail whichever way she is made organiser: both go through organiser_appoint."""
    admin, marieke = AdminFactory(), UserFactory(full_name="Marieke Meeuw", email="marieke@example.nl")
    client.force_login(admin)
    django_mail.outbox.clear()
    appoint(client, marieke)
    run_worker()
    assert [message.to for message in django_mail.outbox] == [["marieke@example.nl"]]
    message = django_mail.outbox[0]
    assert message.subject == "Je bent nu organisator bij de Koud water challenge"
    text = message.body
    assert text.startswith("Hallo Marieke")
    for line in ("events en reeksen aanmaken, wijzigen en afgelasten", "clubbericht", "Was erbij"):
        assert line in text
    assert "passkey of een authenticator-app" in text and "Passkey toevoegen" in text
    assert "Authenticator-app instellen" in text and "/account#tweede-factor" in text
    assert 'via "Organiseren" bovenaan de app' in text and text.count("/admin") == 1
    html = message.alternatives[0][0]
    assert "Tweede factor instellen" in html and "/account#tweede-factor" in html
    assert Mail.objects.get(kind=ORGANISER_APPOINTED).status == Mail.Status.SENT

    # Again (already organiser): no second mail. Taking it back: no mail either.
    appoint(client, marieke)
    _make_organiser(client, marieke, organiser=False)
    run_worker()
    assert len(django_mail.outbox) == 1


def test_an_organiser_who_has_a_factor_already_is_told_to_start(client):
    admin, member = AdminFactory(), AdminFactory(email="al-admin@example.nl")  # an admin has a factor
    client.force_login(admin)
    django_mail.outbox.clear()
    _make_organiser(client, member)
    run_worker()
    text = django_mail.outbox[0].body
    assert "dus je kunt meteen aan de slag" in text and "Passkey toevoegen" not in text


def test_nobody_makes_themselves_organiser(client):
    admin = AdminFactory()
    client.force_login(admin)
    response = _make_organiser(client, admin)
    assert response.status_code == 403
    assert response.json() == {"error": MESSAGE_ORGANISER_SELF, "code": "organiser_self"}
    assert not UserRole.objects.filter(user=admin, role=UserRole.Role.ORGANISER).exists()
    assert not AuditEntry.objects.exists() and not Mail.objects.exists()


def test_the_way_to_a_factor_names_the_organisers_role_and_the_admins(client):
    client.force_login(OrganiserFactory(second_factor=False))
    for url in ("/admin", "/admin/events/"):
        response = client.get(url)
        assert response["Location"] == "/account#tweede-factor"
        assert {str(m) for m in response.wsgi_request._messages} == {MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED}
    assert MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED.startswith("Als organisator heb je een tweede factor nodig")
    page = client.get("/account").content.decode()
    assert "Als organisator heb je een tweede factor nodig" in page and "Als admin" not in page

    client.force_login(AdminFactory(second_factor=False))
    response = client.get("/admin")
    assert [str(m) for m in response.wsgi_request._messages] == [MESSAGE_SECOND_FACTOR_REQUIRED]
    assert "Als admin heb je een tweede factor nodig" in client.get("/account").content.decode()


def _admin_links(html: str) -> set[str]:
    return {href for href in re.findall(r'href="(/admin[^"#?]*)', html)}


def test_admin_shows_the_organiser_exactly_her_screens(client):
    client.force_login(OrganiserFactory())
    response = client.get("/admin")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Organiseren</h1>" in html and "Systeemstatus" not in html and "Gebruikers" not in html
    links = _admin_links(html) - {"/admin"}
    assert links == {"/admin/events/", "/admin/events/nieuw", "/admin/clubbericht/"}
    for link in links:  # each one opens for her
        assert resolve(link).func.staff_role is StaffRole.ORGANISER
        assert client.get(link).status_code == 200
    # From her other pages the header (and the back link) lead there.
    assert 'href="/admin">Organiseren</a>' in client.get("/dashboard").content.decode()
    for url in ("/admin/events/", "/admin/clubbericht/"):
        assert '<a class="btn btn-ghost" href="/admin">← Organiseren</a>' in client.get(url).content.decode()


def test_an_admin_keeps_the_admin_screen(admin_client):
    html = admin_client.get("/admin").content.decode()
    assert "<h1>Admin</h1>" in html and "Systeemstatus" in html
    assert '<a class="btn btn-ghost" href="/admin">← Admin</a>' in admin_client.get("/admin/events/").content.decode()
