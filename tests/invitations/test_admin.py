"""Invitations made in the Django admin get a drawn code and the 30-day expiry; they are not edited there."""

import datetime

import pytest
from django.urls import reverse

import apps.invitations.admin as invitations_admin
from apps.invitations.models import Invitation
from tests.factories import InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db

ADD = reverse("admin:invitations_invitation_add")


def test_an_invitation_added_there_gets_a_drawn_code_and_thirty_days(admin_client, admin_user):
    response = admin_client.post(
        ADD, {"email": "Nieuw@Example.nl", "code": "ZELFGEKO", "expires_at_0": "01-01-2099", "expires_at_1": "12:00"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    invitation = Invitation.objects.get()
    assert invitation.code != "ZELFGEKO"
    assert invitation.email == "nieuw@example.nl"
    assert invitation.invited_by == admin_user
    assert invitation.expires_at - invitation.created_at == datetime.timedelta(days=30)


def test_the_add_form_has_only_the_address(admin_client):
    html = admin_client.get(ADD).content.decode()
    assert 'name="email"' in html
    assert 'name="code"' not in html and 'name="expires_at_0"' not in html


def test_an_overlong_address_is_refused_with_a_message(admin_client):
    response = admin_client.post(ADD, {"email": "a" * 300 + "@example.nl"})
    assert response.status_code == 200
    assert not Invitation.objects.exists()


def test_an_invitation_is_not_edited_there(admin_client):
    invitation = InvitationFactory()
    change = reverse("admin:invitations_invitation_change", args=[invitation.pk])
    response = admin_client.post(change, {"email": "ander@example.nl", "expires_at_0": "01-01-2099"})
    assert response.status_code == 403
    invitation.refresh_from_db()
    assert invitation.email != "ander@example.nl"


def test_deleting_goes_through_invitation_delete(admin_client, monkeypatch):
    invitation = InvitationFactory()
    calls = []
    real = invitations_admin.invitation_delete
    monkeypatch.setattr(invitations_admin, "invitation_delete", lambda **kwargs: calls.append(kwargs) or real(**kwargs))
    response = admin_client.post(reverse("admin:invitations_invitation_delete", args=[invitation.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert [call["invitation"].pk for call in calls] == [invitation.pk]
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda: UserFactory(email="bestaand@example.nl"), "Dit e-mailadres heeft al een account"),
        (
            lambda: InvitationFactory(email="bestaand@example.nl"),
            "Dit e-mailadres heeft al een openstaande uitnodiging",
        ),
    ],
)
def test_an_address_with_an_account_or_an_open_invitation_is_refused_there(admin_client, setup, message):
    setup()
    before = Invitation.objects.count()
    response = admin_client.post(ADD, {"email": "Bestaand@Example.nl"})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Invitation.objects.count() == before
