"""The password minimum is written once, in AUTH_PASSWORD_VALIDATORS: sign-up, the /auth form, the reset
form and the Django admin all follow it."""

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from apps.accounts.admin import UserAdminForm
from apps.accounts.forms import PasswordResetKeyForm, RegisterForm
from apps.accounts.services import account_register
from tests.factories import InvitationFactory

pytestmark = pytest.mark.django_db

EIGHT = [{"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}}]
TOO_SHORT_FOR_EIGHT = "Je wachtwoord moet minstens 8 tekens lang zijn"


@override_settings(AUTH_PASSWORD_VALIDATORS=EIGHT)
def test_every_place_reads_the_minimum_from_the_validator_setting():
    invitation = InvitationFactory()
    with pytest.raises(ValidationError) as refused:
        account_register(code=invitation.code, full_name="Kort", email="kort@example.nl", password="1234567")
    assert refused.value.message_dict["password"] == [TOO_SHORT_FOR_EIGHT]

    form = RegisterForm(data={"code": invitation.code, "full_name": "K", "email": "k@ex.nl", "password": "1234567"})
    assert form.fields["password"].help_text == "Minimaal 8 tekens"
    assert form.errors["password"] == [TOO_SHORT_FOR_EIGHT]

    assert PasswordResetKeyForm(user=None).fields["password1"].help_text == "Minimaal 8 tekens"

    admin_form = UserAdminForm(data={"email": "a@example.nl", "full_name": "A", "password": "1234567"})
    assert admin_form.errors["password"] == [TOO_SHORT_FOR_EIGHT]
    assert UserAdminForm(data={"email": "a@example.nl", "full_name": "A", "password": "12345678"}).is_valid()
