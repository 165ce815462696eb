"""Forms for /auth and allauth's password reset. They check input; the rules live in the services."""

from allauth.account.forms import LoginForm, ResetPasswordForm, ResetPasswordKeyForm
from allauth.mfa.webauthn.forms import AddWebAuthnForm
from django import forms

from apps.invitations.services import MESSAGE_CODE_REQUIRED

from .services import MESSAGE_PASSWORD_TOO_SHORT, PASSWORD_MIN_LENGTH


class DescribedErrorsMixin:
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


class SignInForm(DescribedErrorsMixin, LoginForm):
    """allauth's LoginForm (so its authentication, rate limits and signals apply), with our Dutch labels."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["login"], label="E-mailadres", autocomplete="email", inputmode="email")
        _plain(self.fields["password"], label="Wachtwoord", autocomplete="current-password")
        # The page shows its own 'Wachtwoord vergeten?' link.
        self.fields["password"].help_text = ""


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
        help_text=f"Minimaal {PASSWORD_MIN_LENGTH} tekens",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}, render_value=False),
    )
    newsletter_consent = forms.BooleanField(
        label="Ja, ik ontvang graag de nieuwsbrief",
        required=False,
    )

    def clean_code(self):
        return self.cleaned_data["code"].strip().upper()

    def clean_password(self):
        password = self.cleaned_data["password"]
        if len(password) < PASSWORD_MIN_LENGTH:
            raise forms.ValidationError(MESSAGE_PASSWORD_TOO_SHORT, code="password_too_short")
        return password


class PasswordResetForm(DescribedErrorsMixin, ResetPasswordForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["email"], label="E-mailadres", autocomplete="email", inputmode="email")


class PasswordResetKeyForm(DescribedErrorsMixin, ResetPasswordKeyForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain(self.fields["password1"], label="Nieuw wachtwoord", autocomplete="new-password")
        self.fields["password1"].help_text = f"Minimaal {PASSWORD_MIN_LENGTH} tekens"
        _plain(self.fields["password2"], label="Nieuw wachtwoord (nogmaals)", autocomplete="new-password")


class PasskeyAddForm(AddWebAuthnForm):
    """allauth's form to add a security key, as a passkey by default: one that can sign in on its own."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].label = "Naam van de passkey"
        self.fields["name"].help_text = "Bijvoorbeeld de telefoon of laptop waarop je hem bewaart."
        if "passwordless" in self.fields:
            self.fields["passwordless"].initial = True
            self.fields["passwordless"].label = "Inloggen met alleen deze passkey (vingerafdruk, gezicht of pincode)"
            self.fields["passwordless"].help_text = ""
