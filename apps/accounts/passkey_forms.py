"""allauth's passkey forms, with the browser's answer checked before fido2 reads it.

allauth parses the posted WebAuthn JSON with fido2 and turns only TypeError and ValueError into "wrong
code". Hostile JSON gets further: a missing "rawId" is a KeyError (a 500), and a number where fido2 expects
base64 text is handed to `bytes(n)`: `{"rawId": 1000000000}` allocates a gigabyte. A real browser sends
only objects, text, booleans and null, so anything else is refused, in Dutch, before fido2 reads it.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING

from allauth.mfa.webauthn.forms import AuthenticateWebAuthnForm, LoginWebAuthnForm, ReauthenticateWebAuthnForm
from django import forms
from fido2.webauthn import AuthenticationResponse, RegistrationResponse

MESSAGE_PASSKEY_ANSWER_BROKEN = "Je passkey gaf een antwoord dat we niet kunnen lezen. Probeer het opnieuw."
# Deeper than any browser's answer (extension results nest two or three levels).
MAX_DEPTH = 8


def _browser_shaped(value, depth: int = 0) -> bool:
    """Only what navigator.credentials returns as JSON: objects and lists of text, booleans and null."""
    if depth > MAX_DEPTH:
        return False
    if value is None or isinstance(value, str | bool):
        return True
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _browser_shaped(item, depth + 1) for key, item in value.items())
    if isinstance(value, list):
        return all(_browser_shaped(item, depth + 1) for item in value)
    return False  # numbers: fido2 would read an int as a length of zero bytes to allocate


def passkey_response_check(credential, response_class: type[AuthenticationResponse] | type[RegistrationResponse]):
    """Raise a ValidationError unless `credential` is a WebAuthn answer that fido2 can read."""
    if not isinstance(credential, Mapping) or not _browser_shaped(credential):
        raise forms.ValidationError(MESSAGE_PASSKEY_ANSWER_BROKEN, code="passkey_answer_broken")
    try:
        response_class.from_dict(credential)
    except (KeyError, TypeError, ValueError) as error:
        raise forms.ValidationError(MESSAGE_PASSKEY_ANSWER_BROKEN, code="passkey_answer_broken") from error


class PasskeyAnswerField(forms.JSONField):
    """Django's JSONField catches only JSONDecodeError, but json.loads("9" * 5000) raises a plain ValueError
    (Python's limit of 4,300 digits for an int) and json.loads("[" * 5000) a RecursionError (nesting deeper
    than the interpreter's stack): both are invalid JSON too, on reading and on showing again."""

    widget = forms.HiddenInput

    def to_python(self, value):
        try:
            return super().to_python(value)
        except (ValueError, RecursionError) as error:  # a ValidationError is neither: it passes untouched
            raise forms.ValidationError(
                self.error_messages["invalid"], code="invalid", params={"value": value}
            ) from error

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except (ValueError, RecursionError):
            return forms.fields.InvalidJSONInput(data)


if TYPE_CHECKING:
    # The mixins go on allauth's WebAuthn forms (clean_credential is theirs); allauth ships no types.
    from allauth.mfa.webauthn.forms import AuthenticateWebAuthnForm as _WebAuthnFormBase
else:
    _WebAuthnFormBase = object


class PasskeyAnswerMixin(_WebAuthnFormBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["credential"] = PasskeyAnswerField(required=True)


class CheckedAuthenticationMixin(PasskeyAnswerMixin):
    def clean_credential(self):
        passkey_response_check(self.cleaned_data["credential"], AuthenticationResponse)
        return super().clean_credential()


class PasskeyLoginForm(CheckedAuthenticationMixin, LoginWebAuthnForm):
    """/auth/passkey: signing in with a passkey alone (anyone may post here)."""


class PasskeySecondStepForm(CheckedAuthenticationMixin, AuthenticateWebAuthnForm):
    """/auth/tweede-stap: the passkey as the second step after the password."""


class PasskeyReauthenticateForm(CheckedAuthenticationMixin, ReauthenticateWebAuthnForm):
    """Confirming it is you with a passkey before a sensitive change."""


class CheckedRegistrationMixin(PasskeyAnswerMixin):
    def clean(self):
        credential = self.cleaned_data.get("credential")
        if credential:
            passkey_response_check(credential, RegistrationResponse)
        return super().clean()
