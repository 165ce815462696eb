"""/account's reminder choices, the unsubscribe page, and the admin's 'Opnieuw versturen' endpoint."""

import pytest
from django.utils import timezone

from apps.notifications.links import UnsubscribeScope, unsubscribe_token
from apps.notifications.models import InvitationOptOut, Mail, MailPreference
from apps.notifications.services import mail_preference_for
from tests.factories import InvitationFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def test_the_account_page_has_both_choices_with_the_nudge_off_by_default(member_client):
    html = member_client.get("/account").content.decode()
    assert "Stuur me een herinnering als ik 14 dagen niet heb geplonsd" in html
    assert '<input type="checkbox" name="dip_nudge">' in html
    assert '<input type="checkbox" name="event_mails" checked>' in html
    assert "Agenda-abonnement" in html


def test_saving_the_choices(member_client, member):
    response = member_client.post("/account/e-mailvoorkeuren", {"dip_nudge": "on"})
    assert response.status_code == 302 and response["Location"] == "/account#herinneringen"
    preference = MailPreference.objects.get(user=member)
    assert preference.dip_nudge is True and preference.event_mails is False
    html = member_client.get("/account").content.decode()
    assert '<input type="checkbox" name="dip_nudge" checked>' in html


def test_saving_needs_the_csrf_token(client, member):
    client = type(client)(enforce_csrf_checks=True)
    client.force_login(member)
    assert client.post("/account/e-mailvoorkeuren", {"dip_nudge": "on"}).status_code == 403
    assert not MailPreference.objects.exists()


def test_a_get_of_the_unsubscribe_link_changes_nothing(client, member):
    token = unsubscribe_token(scope=UnsubscribeScope.EVENT_MAILS, user_id=member.pk)
    response = client.get(f"/mail/afmelden/{token}")
    assert response.status_code == 200
    assert "Afmelden voor deze e-mails" in response.content.decode()
    assert mail_preference_for(member).event_mails is True


def test_the_one_click_post_unsubscribes_without_signing_in(client, member):
    client = type(client)(enforce_csrf_checks=True)
    token = unsubscribe_token(scope=UnsubscribeScope.EVENT_MAILS, user_id=member.pk)
    response = client.post(f"/mail/afmelden/{token}", "List-Unsubscribe=One-Click", content_type="text/plain")
    assert response.status_code == 200
    assert "Je krijgt geen e-mail meer over events" in response.content.decode()
    assert mail_preference_for(member).event_mails is False


def test_unsubscribing_twice_is_fine(client):
    token = unsubscribe_token(scope=UnsubscribeScope.INVITATIONS, email="x@example.nl")
    assert client.post(f"/mail/afmelden/{token}").status_code == 200
    assert client.post(f"/mail/afmelden/{token}").status_code == 200
    assert InvitationOptOut.objects.filter(email="x@example.nl").count() == 1


def test_a_tampered_token_is_a_clear_400(client, member):
    token = unsubscribe_token(scope=UnsubscribeScope.EVENT_MAILS, user_id=member.pk)
    response = client.post(f"/mail/afmelden/{token[:-2]}xx")
    assert response.status_code == 400
    assert "Deze afmeldlink klopt niet" in response.content.decode()


# The admin's 'Opnieuw versturen' ---------------------------------------------------------------------


def resend(client, invitation_id):
    return client.post(f"/admin/api/uitnodigingen/{invitation_id}/versturen", content_type="application/json")


def test_resending_a_failed_invitation(admin_client, smtp_server):
    invitation = InvitationFactory(email="nieuw@example.nl")
    Mail.objects.create(kind="invitation", invitation=invitation, to_email=invitation.email, status="failed")

    response = resend(admin_client, invitation.pk)

    assert response.status_code == 200
    body = response.json()
    assert body["message"] == "De uitnodiging wordt opnieuw verstuurd."
    assert body["invitation"]["mailStatus"] == "queued" and body["invitation"]["mailStatusLabel"] == "In de wachtrij"
    run_worker()
    assert smtp_server.only()["To"] == "nieuw@example.nl"
    assert admin_client.get("/admin/api/uitnodigingen").json()["invitations"][0]["mailStatusLabel"] == "Verstuurd"


@pytest.mark.parametrize(
    ("invitation_kwargs", "message", "code"),
    [
        ({"email": None}, "Deze uitnodiging heeft geen e-mailadres.", "invitation_no_email"),
        (
            {"email": "weg@example.nl", "used": True},
            "Deze uitnodiging is al gebruikt of verlopen.",
            "invitation_not_active",
        ),
    ],
    ids=["no-address", "used"],
)
def test_resending_is_refused_with_a_reason(admin_client, invitation_kwargs, message, code):
    used = invitation_kwargs.pop("used", False)
    invitation = InvitationFactory(**invitation_kwargs, **({"used_at": timezone.now()} if used else {}))
    response = resend(admin_client, invitation.pk)
    assert response.status_code == 409 and response.json() == {"error": message, "code": code}
    assert not Mail.objects.exists()


def test_resending_to_an_address_that_opted_out_is_refused(admin_client):
    invitation = InvitationFactory(email="nee@example.nl")
    InvitationOptOut.objects.create(email="nee@example.nl")
    response = resend(admin_client, invitation.pk)
    assert response.json() == {"error": "Dit e-mailadres wil geen uitnodigingen meer ontvangen.", "code": "opted_out"}


def test_resending_an_unknown_invitation(admin_client):
    response = resend(admin_client, 987654)
    assert response.status_code == 409 and response.json() == {
        "error": "Deze uitnodiging bestaat niet meer.",
        "code": "invitation_gone",
    }


@pytest.mark.parametrize("size", [1, 60])
def test_the_invitations_table_shows_mail_status_at_a_fixed_cost(admin_client, django_assert_max_num_queries, size):
    for n in range(size):
        invitation = InvitationFactory(email=f"lid{n}@example.nl")
        Mail.objects.create(kind="invitation", invitation=invitation, to_email=invitation.email, status="sent")
    with django_assert_max_num_queries(6):
        rows = admin_client.get("/admin/api/uitnodigingen").json()["invitations"]
    assert {row["mailStatusLabel"] for row in rows} == {"Verstuurd"}
