"""The Django admin's user and role screens write through the same services as /admin."""

import pytest
from django.urls import reverse

import apps.accounts.admin as accounts_admin
from apps.accounts.models import User, UserRole
from apps.accounts.removal import MESSAGE_LAST_ACTIVE_ADMIN, AdminActionError, user_delete, user_save
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:accounts_user_changelist")


def delete_url(user) -> str:
    return reverse("admin:accounts_user_delete", args=[user.pk])


@pytest.fixture
def spies(monkeypatch):
    """Record each service call the admin makes, and let the real service do its work."""
    calls = []
    for name in ("user_delete", "role_grant", "role_revoke"):
        real = getattr(accounts_admin, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(accounts_admin, name, spy)
    return calls


def test_no_lookup_on_password_hashes(admin_client, member):
    response = admin_client.get(CHANGELIST, {"password__startswith": "md5$"})
    assert response.status_code == 400
    assert "marit@example.nl" not in response.content.decode()
    assert admin_client.get(CHANGELIST, {"email__startswith": "marit"}).status_code == 200


def test_deleting_a_member_goes_through_user_delete(admin_client, member, spies):
    response = admin_client.post(delete_url(member), {"post": "yes"})
    assert response.status_code == 302
    assert spies == ["user_delete"]
    assert not User.objects.filter(pk=member.pk).exists()


def test_an_admin_cannot_delete_their_own_account_there(admin_client, admin_user, spies):
    confirm = admin_client.get(delete_url(admin_user))
    assert "Je kunt je eigen account niet verwijderen." in confirm.content.decode()
    assert admin_client.post(delete_url(admin_user), {"post": "yes"}).status_code == 403
    assert User.objects.filter(pk=admin_user.pk).exists()
    assert spies == []


def test_a_bulk_delete_that_includes_oneself_deletes_nobody(admin_client, admin_user, member):
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [admin_user.pk, member.pk], "post": "yes"}
    )
    assert response.status_code == 403
    assert User.objects.filter(pk__in=[admin_user.pk, member.pk]).count() == 2


def test_the_service_refuses_the_last_admin(member, admin_user):
    with pytest.raises(AdminActionError, match="Je kunt de laatste admin niet verwijderen."):
        user_delete(actor=member, user_id=admin_user.pk)
    other_admin = AdminFactory()
    user_delete(actor=other_admin, user_id=admin_user.pk)
    assert not User.objects.filter(pk=admin_user.pk).exists()


def role_form(user, *, roles: list[UserRole], add: bool = False, delete: set[int] = frozenset()) -> dict:
    data = {
        "email": user.email,
        "full_name": user.full_name,
        "is_active": "on",
        "password": "",
        "roles-TOTAL_FORMS": str(len(roles) + (1 if add else 0)),
        "roles-INITIAL_FORMS": str(len(roles)),
        "roles-MIN_NUM_FORMS": "0",
        "roles-MAX_NUM_FORMS": "1000",
    }
    for index, role in enumerate(roles):
        data[f"roles-{index}-id"] = str(role.pk)
        data[f"roles-{index}-user"] = str(user.pk)
        if role.pk in delete:
            data[f"roles-{index}-DELETE"] = "on"
    if add:
        data[f"roles-{len(roles)}-role"] = "admin"
        data[f"roles-{len(roles)}-user"] = str(user.pk)
    return data


def change_url(user) -> str:
    return reverse("admin:accounts_user_change", args=[user.pk])


def test_the_role_inline_grants_through_role_grant(admin_client, member, spies):
    response = admin_client.post(change_url(member), role_form(member, roles=[], add=True))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert spies == ["role_grant"]
    assert User.objects.get(pk=member.pk).has_admin_role


def test_the_role_inline_revokes_through_role_revoke(admin_client, spies):
    colleague = AdminFactory(email="kees@example.nl")
    role = colleague.roles.get()
    response = admin_client.post(change_url(colleague), role_form(colleague, roles=[role], delete={role.pk}))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert spies == ["role_revoke"]
    assert not User.objects.get(pk=colleague.pk).has_admin_role


def test_an_admin_cannot_take_away_their_own_role_there(admin_client, admin_user, spies):
    role = admin_user.roles.get()
    response = admin_client.post(change_url(admin_user), role_form(admin_user, roles=[role], delete={role.pk}))
    assert response.status_code == 200
    assert "Je kunt je eigen admin-rol hier niet intrekken." in response.content.decode()
    assert spies == []
    assert UserRole.objects.filter(pk=role.pk).exists()


def test_the_role_screen_grants_and_revokes_through_the_services(admin_client, admin_user, spies):
    member = UserFactory(email="nieuw@example.nl")
    added = admin_client.post(reverse("admin:accounts_userrole_add"), {"user": member.pk, "role": "admin"})
    assert added.status_code == 302
    role = UserRole.objects.get(user=member)
    removed = admin_client.post(reverse("admin:accounts_userrole_delete", args=[role.pk]), {"post": "yes"})
    assert removed.status_code == 302
    assert spies == ["role_grant", "role_revoke"]
    assert not UserRole.objects.filter(user=member).exists()
    own = admin_user.roles.get()
    assert (
        admin_client.post(reverse("admin:accounts_userrole_delete", args=[own.pk]), {"post": "yes"}).status_code == 403
    )
    assert UserRole.objects.filter(pk=own.pk).exists()


# --- never zero active admins ------------------------------------------------------------------


def test_the_last_admin_cannot_switch_off_their_own_account(admin_client, admin_user):
    data = role_form(admin_user, roles=list(admin_user.roles.all())) | {"is_active": ""}
    response = admin_client.post(change_url(admin_user), data)
    assert response.status_code == 200
    assert MESSAGE_LAST_ACTIVE_ADMIN in response.content.decode()
    assert User.objects.get(pk=admin_user.pk).is_active


def test_with_another_active_admin_an_admin_account_can_be_switched_off(admin_client, admin_user):
    colleague = AdminFactory(email="kees@example.nl")
    data = role_form(colleague, roles=list(colleague.roles.all())) | {"is_active": ""}
    response = admin_client.post(change_url(colleague), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not User.objects.get(pk=colleague.pk).is_active
    # Now the admin who did it is the last active one.
    own = role_form(admin_user, roles=list(admin_user.roles.all())) | {"is_active": ""}
    assert MESSAGE_LAST_ACTIVE_ADMIN in admin_client.post(change_url(admin_user), own).content.decode()


def test_a_switched_off_admin_does_not_count_as_the_clubs_admin(admin_user):
    AdminFactory(email="slaper@example.nl", is_active=False)
    admin_user.is_active = False
    with pytest.raises(AdminActionError, match=MESSAGE_LAST_ACTIVE_ADMIN):
        user_save(user=admin_user)
    assert User.objects.get(pk=admin_user.pk).is_active
    with pytest.raises(AdminActionError, match="Je kunt de laatste admin niet verwijderen."):
        user_delete(actor=UserFactory(), user_id=admin_user.pk)
    # A member is switched off without any admin question.
    member = UserFactory(email="weg@example.nl")
    member.is_active = False
    user_save(user=member)
    assert not User.objects.get(pk=member.pk).is_active


def test_second_factors_are_seen_and_deleted_there_never_typed_in(admin_client, admin_user):
    factor = admin_user.authenticator_set.first()
    assert admin_client.get("/django-admin/mfa/authenticator/add/").status_code == 403
    page = admin_client.get(f"/django-admin/mfa/authenticator/{factor.pk}/change/")
    assert page.status_code == 200 and 'name="data"' not in page.content.decode()
    assert (
        admin_client.post(f"/django-admin/mfa/authenticator/{factor.pk}/change/", {"data": "9" * 5000}).status_code
        == 403
    )
    factor.refresh_from_db()
    assert "9" * 50 not in str(factor.data)
