"""Mijn account: name, e-mail, newsletter, password, and deleting the own account."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import SESSION_KEY
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.test import Client

from apps.accounts.models import User, UserRole
from apps.accounts.removal import (
    MESSAGE_LAST_ADMIN,
    MESSAGE_LAST_ADMIN_OWN_ACCOUNT,
    AccountDeletionError,
    AdminActionError,
    account_delete,
    user_delete,
)
from apps.accounts.services import (
    MESSAGE_EMAIL_TAKEN,
    MESSAGE_PASSWORD_WRONG,
    account_email_change_confirm,
    account_password_change,
    account_profile_update,
)
from apps.challenges.models import Dip, UserBadge, UserChallenge, photo_storage
from apps.events.models import EventParticipant
from apps.invitations.models import Invitation
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    DEFAULT_PASSWORD,
    AdminFactory,
    DipFactory,
    EventParticipantFactory,
    InvitationFactory,
    UserBadgeFactory,
    UserChallengeFactory,
)

pytestmark = pytest.mark.django_db


# --- services ---------------------------------------------------------------------------------------


def test_profile_update_changes_name_and_consent_and_only_asks_for_a_new_email(member):
    asked = account_profile_update(
        user=member, full_name=" Marit Nieuw ", email="Marit.Nieuw@Example.nl", newsletter_consent=True
    )
    member.refresh_from_db()
    # The new address waits for the link sent to it (tests/accounts/test_email_change.py).
    assert asked == "marit.nieuw@example.nl"
    assert (member.full_name, member.email, member.newsletter_consent) == ("Marit Nieuw", "marit@example.nl", True)
    assert EmailAddress.objects.get(user=member, verified=False).email == "marit.nieuw@example.nl"


def test_an_email_address_taken_in_any_case_is_refused(member, other_member):
    with pytest.raises(ValidationError) as caught:
        account_profile_update(user=member, full_name="Marit", email="OTTO@example.nl", newsletter_consent=False)
    assert caught.value.message_dict == {"email": [MESSAGE_EMAIL_TAKEN]}
    member.refresh_from_db()
    assert member.email == "marit@example.nl"


def test_the_old_address_is_no_way_in_after_a_change(member):
    EmailAddress.objects.create(user=member, email=member.email, primary=True, verified=True)
    account_profile_update(user=member, full_name="Marit", email="nieuw@example.nl", newsletter_consent=False)
    account_email_change_confirm(email_address_id=EmailAddress.objects.get(email="nieuw@example.nl").pk)
    assert not EmailAddress.objects.filter(email__iexact="marit@example.nl").exists()
    client = Client()
    assert client.post("/auth", {"login": "marit@example.nl", "password": DEFAULT_PASSWORD}).status_code != 302
    assert client.login(email="nieuw@example.nl", password=DEFAULT_PASSWORD)


def test_an_empty_name_or_bad_address_changes_nothing(member):
    with pytest.raises(ValidationError) as caught:
        account_profile_update(user=member, full_name=" ", email="geen-adres", newsletter_consent=True)
    assert set(caught.value.message_dict) == {"full_name", "email"}
    member.refresh_from_db()
    assert (member.full_name, member.newsletter_consent) == ("Marit Zwemmer", False)


def test_password_change_needs_the_current_password(member):
    with pytest.raises(ValidationError) as caught:
        account_password_change(user=member, current_password="fout", new_password="nog-kouder-water")
    assert caught.value.message_dict == {"current_password": [MESSAGE_PASSWORD_WRONG]}
    account_password_change(user=member, current_password=DEFAULT_PASSWORD, new_password="nog-kouder-water")
    member.refresh_from_db()
    assert member.check_password("nog-kouder-water")


def test_a_too_short_new_password_is_refused(member):
    with pytest.raises(ValidationError) as caught:
        account_password_change(user=member, current_password=DEFAULT_PASSWORD, new_password="kort")
    assert "new_password" in caught.value.message_dict
    member.refresh_from_db()
    assert member.check_password(DEFAULT_PASSWORD)


def test_deleting_removes_everything_of_the_member_and_keeps_invitations_they_sent(
    member, other_member, django_capture_on_commit_callbacks
):
    card = UserChallengeFactory(user=member)
    storage = photo_storage()
    photo = storage.save(f"{member.pk}/weg.jpg", ContentFile(image_bytes()))
    DipFactory(user_challenge=card, number=1, photo=photo)
    UserBadgeFactory(user_challenge=card)
    EventParticipantFactory(user=member)
    invitation = InvitationFactory(invited_by=member)
    kept = DipFactory(user_challenge=UserChallengeFactory(user=other_member), number=1)
    with django_capture_on_commit_callbacks(execute=True):
        account_delete(user=member, password=DEFAULT_PASSWORD)
    assert not User.objects.filter(pk=member.pk).exists()
    for model in (UserChallenge, Dip, UserBadge, EventParticipant):
        assert not model.objects.filter(user_id=member.pk).exists()
    assert not storage.exists(photo)
    invitation.refresh_from_db()
    assert invitation.invited_by is None
    assert Dip.objects.filter(pk=kept.pk).exists() and Invitation.objects.filter(pk=invitation.pk).exists()


def test_deleting_with_a_wrong_password_deletes_nothing(member):
    with pytest.raises(ValidationError):
        account_delete(user=member, password="fout")
    assert User.objects.filter(pk=member.pk).exists()


def test_the_last_admin_cannot_delete_their_own_account(admin_user):
    with pytest.raises(AccountDeletionError, match=MESSAGE_LAST_ADMIN_OWN_ACCOUNT):
        account_delete(user=admin_user, password=DEFAULT_PASSWORD)
    assert User.objects.filter(pk=admin_user.pk).exists()
    AdminFactory()
    account_delete(user=admin_user, password=DEFAULT_PASSWORD)
    assert not User.objects.filter(pk=admin_user.pk).exists()


def test_the_admin_screen_and_the_member_share_one_deletion_rule(admin_user, member):
    second_admin = AdminFactory()
    UserRole.objects.filter(user=admin_user).delete()  # now second_admin is the only admin
    with pytest.raises(AdminActionError, match=MESSAGE_LAST_ADMIN):
        user_delete(actor=admin_user, user_id=second_admin.pk)
    with pytest.raises(AccountDeletionError):
        user_delete(actor=admin_user, user_id=999_999)


# --- views ------------------------------------------------------------------------------------------


def test_the_account_page_has_the_forms_export_and_delete(member_client):
    html = member_client.get("/account").content.decode()
    for text in ("Mijn gegevens", "Wachtwoord wijzigen", "Download mijn gegevens", "Account verwijderen"):
        assert text in html
    assert 'value="marit@example.nl"' in html and 'action="/account/export"' in html


def test_profile_form_saves_and_says_so(member_client, member):
    response = member_client.post(
        "/account/profiel",
        {"profiel-full_name": "Marit Z.", "profiel-email": "marit@example.nl", "profiel-newsletter_consent": "on"},
        follow=True,
    )
    assert response.redirect_chain == [("/account", 302)]
    assert "Je gegevens zijn opgeslagen." in response.content.decode()
    member.refresh_from_db()
    assert member.full_name == "Marit Z." and member.newsletter_consent


def test_profile_form_with_a_taken_address_shows_the_message_next_to_it(member_client, member, other_member):
    member_client.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD})  # a new address asks it first
    response = member_client.post(
        "/account/profiel", {"profiel-full_name": "Marit", "profiel-email": "Otto@Example.nl"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Er bestaat al een account met dit e-mailadres." in html and 'value="Otto@Example.nl"' in html
    member.refresh_from_db()
    assert member.email == "marit@example.nl"


def test_password_change_keeps_this_session_signed_in(member_client, member):
    response = member_client.post(
        "/account/wachtwoord",
        {"wachtwoord-current_password": DEFAULT_PASSWORD, "wachtwoord-new_password": "nog-kouder-water"},
    )
    assert response.status_code == 302 and response["Location"] == "/account"
    assert member_client.get("/account").status_code == 200
    member.refresh_from_db()
    assert member.check_password("nog-kouder-water")


def test_password_change_with_a_wrong_current_password_says_so(member_client, member):
    response = member_client.post(
        "/account/wachtwoord",
        {"wachtwoord-current_password": "fout", "wachtwoord-new_password": "nog-kouder-water"},
    )
    assert response.status_code == 400 and MESSAGE_PASSWORD_WRONG in response.content.decode()


def test_delete_signs_out_and_says_goodbye(member_client, member):
    response = member_client.post("/account/verwijderen", {"verwijderen-password": DEFAULT_PASSWORD}, follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "Je account en al je gegevens zijn verwijderd." in response.content.decode()
    assert SESSION_KEY not in member_client.session
    assert not User.objects.filter(pk=member.pk).exists()


def test_delete_with_a_wrong_password_keeps_everything(member_client, member):
    response = member_client.post("/account/verwijderen", {"verwijderen-password": "fout"})
    assert response.status_code == 400 and MESSAGE_PASSWORD_WRONG in response.content.decode()
    assert User.objects.filter(pk=member.pk).exists()


def test_the_last_admin_sees_why_deleting_is_refused(admin_client, admin_user):
    response = admin_client.post("/account/verwijderen", {"verwijderen-password": DEFAULT_PASSWORD})
    assert response.status_code == 400 and MESSAGE_LAST_ADMIN_OWN_ACCOUNT in response.content.decode()
    assert User.objects.filter(pk=admin_user.pk).exists()


@pytest.mark.parametrize("path", ["/account/profiel", "/account/wachtwoord", "/account/verwijderen"])
def test_writes_need_post_and_csrf(member, path):
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    assert client.get(path).status_code == 405
    assert client.post(path, {"verwijderen-password": DEFAULT_PASSWORD}).status_code == 403
    assert User.objects.filter(pk=member.pk).exists()
