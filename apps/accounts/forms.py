"""Forms for /auth and allauth's password reset. They check input; the rules live in the services."""

from typing import TYPE_CHECKING

from allauth.account import forms as allauth_forms
from allauth.account.forms import LoginForm, ResetPasswordForm, ResetPasswordKeyForm
from allauth.mfa.webauthn.forms import AddWebAuthnForm
from django import forms
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX

from apps.invitations.services import MESSAGE_CODE_REQUIRED, invitation_code_normalize

from .models import User
from .passkey_forms import CheckedRegistrationMixin
from .passwords import password_help_text, password_length_validate

if TYPE_CHECKING:
    # What the mixin reads (errors, fields, bound fields) is a Django form's.
    _FormBase = forms.Form
else:
    _FormBase = object


class DescribedErrorsMixin(_FormBase):
    """Point each invalid input at its error text (aria-describedby), so screen readers read it out.

    Django 5.2 already links the help text and sets aria-invalid; the error paragraphs rendered by
    templates/accounts/_field.html have the id `<input id>_error`.
    """

    def full_clean(self):
        super().full_clean()
        for name in self.errors:
            if name not in self.fields:
                continue
            bound = self[name]
            widget = self.fields[name].widget
            described = [f"{bound.auto_id}_error"]
            if self.fields[name].help_text:
                described.insert(0, f"{bound.auto_id}_helptext")
            widget.attrs["aria-describedby"] = " ".join(described)


def _plain(field: forms.Field, *, label: str, **attrs) -> None:
    # allauth puts its English-derived labels in placeholders; our visible labels are enough.
    field.label = label
    field.widget.attrs.pop("placeholder", None)
    field.widget.attrs.update(attrs)


# A member whose password could not come along from the original app (an argon2 hash, none at all) has no
# password here: any she types is wrong, and she must hear why.
MESSAGE_NO_PASSWORD_YET = (
    "Je account heeft hier nog geen wachtwoord (je oude wachtwoord kon niet mee uit de oude app). "  # noqa: S105
    "Kies een nieuw wachtwoord via 'Wachtwoord vergeten?' hieronder."
)


class SignInForm(DescribedErrorsMixin, LoginForm):
    """allauth's LoginForm (so its authentication, rate limits and signals apply), with our Dutch labels."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["login"], label="E-mailadres", autocomplete="email", inputmode="email")
        _plain(self.fields["password"], label="Wachtwoord", autocomplete="current-password")
        # The page shows its own 'Wachtwoord vergeten?' link.
        self.fields["password"].help_text = ""

    def clean(self):
        try:
            return super().clean()
        except forms.ValidationError as error:
            if error.code == "email_password_mismatch" and self._without_password():
                raise forms.ValidationError(MESSAGE_NO_PASSWORD_YET, code="no_password_yet") from error
            raise

    def _without_password(self) -> bool:
        stored = (
            User.objects.filter(email__iexact=self.cleaned_data.get("login", ""), is_active=True)
            .values_list("password", flat=True)
            .first()
        )
        return stored is not None and stored.startswith(UNUSABLE_PASSWORD_PREFIX)


class RegisterForm(DescribedErrorsMixin, forms.Form):
    code = forms.CharField(
        label="Uitnodigingscode",
        max_length=32,
        error_messages={"required": MESSAGE_CODE_REQUIRED},
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}),
    )
    full_name = forms.CharField(label="Naam", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(
        label="E-mailadres",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "inputmode": "email"}),
    )
    # No min_length here: the browser would show its own message instead of ours.
    password = forms.CharField(
        label="Wachtwoord",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}, render_value=False),
    )
    newsletter_consent = forms.BooleanField(
        label="Ja, ik ontvang graag de nieuwsbrief",
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["password"].help_text = password_help_text()

    def clean_code(self):
        return invitation_code_normalize(self.cleaned_data["code"])

    def clean_password(self):
        password = self.cleaned_data["password"]
        password_length_validate(password)
        return password


class PasswordResetForm(DescribedErrorsMixin, ResetPasswordForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["email"], label="E-mailadres", autocomplete="email", inputmode="email")

    def clean_email(self):
        email = super().clean_email()
        # allauth also finds an account by an address still waiting for its confirmation link; a reset link
        # goes only to the address the account uses now.
        self.users: list[User] = [user for user in self.users if user.email.lower() == email.strip().lower()]
        return email


class ReauthenticateForm(DescribedErrorsMixin, allauth_forms.ReauthenticateForm):
    """allauth's 'confirm it is you' form (its check, rate limit and record), with our Dutch label."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["password"], label="Je wachtwoord", autocomplete="current-password")
        self.fields["password"].help_text = ""


class PasswordResetKeyForm(DescribedErrorsMixin, ResetPasswordKeyForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["password1"], label="Nieuw wachtwoord", autocomplete="new-password")
        self.fields["password1"].help_text = password_help_text()
        _plain(self.fields["password2"], label="Nieuw wachtwoord (nogmaals)", autocomplete="new-password")


class ProfileForm(DescribedErrorsMixin, forms.Form):
    """Mijn account: name, e-mail address and newsletter consent (the rules: account_profile_update)."""

    full_name = forms.CharField(label="Naam", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(
        label="E-mailadres",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "inputmode": "email"}),
    )
    newsletter_consent = forms.BooleanField(label="Ja, ik ontvang graag de nieuwsbrief", required=False)

    @classmethod
    def for_user(cls, user, **kwargs):
        initial = {"full_name": user.full_name, "email": user.email, "newsletter_consent": user.newsletter_consent}
        return cls(initial=initial, prefix="profiel", **kwargs)


class PasswordChangeForm(DescribedErrorsMixin, forms.Form):
    current_password = forms.CharField(
        label="Huidig wachtwoord",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    # No min_length here: the browser would show its own message instead of ours.
    new_password = forms.CharField(
        label="Nieuw wachtwoord",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, data=None, **kwargs):
        super().__init__(data, prefix="wachtwoord", **kwargs)
        self.fields["new_password"].help_text = password_help_text()


class AccountDeleteForm(DescribedErrorsMixin, forms.Form):
    password = forms.CharField(
        label="Je wachtwoord",
        strip=False,
        help_text="Ter bevestiging: hiermee verwijder je je account en al je gegevens.",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, data=None, **kwargs):
        super().__init__(data, prefix="verwijderen", **kwargs)


def add_service_errors(form: forms.Form, error) -> None:
    """Put a service's ValidationError (a dict per field) next to the form's fields."""
    for field, messages in error.message_dict.items():
        form.add_error(field if field in form.fields else None, messages)


class PasskeyAddForm(CheckedRegistrationMixin, AddWebAuthnForm):
    """allauth's form to add a security key, as a passkey by default: one that can sign in on its own."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].label = "Naam van de passkey"
        self.fields["name"].help_text = "Bijvoorbeeld de telefoon of laptop waarop je hem bewaart."
        if "passwordless" in self.fields:
            self.fields["passwordless"].initial = True
            self.fields["passwordless"].label = "Inloggen met alleen deze passkey (vingerafdruk, gezicht of pincode)"
            self.fields["passwordless"].help_text = ""
