from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.flows.reauthentication import get_reauthentication_flows
from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse

from .mail import queue_connection
from .passwords import password_length_validate
from .services import MESSAGE_PASSWORD_WRONG, account_email_change_confirm

# allauth's own Dutch says only "probeer het later nogmaals"; members must know to wait a while, or
# that a new password (the link right below the form) lets them in at once.
MESSAGE_TOO_MANY_LOGIN_ATTEMPTS = (
    "Te veel mislukte inlogpogingen. Wacht een paar minuten en probeer het dan opnieuw, "
    "of kies hieronder 'Wachtwoord vergeten?'."
)
MESSAGE_ACCOUNT_INACTIVE = "Dit account is niet actief. Neem contact op met de organisatie."
MESSAGE_EMAIL_CONFIRMED = "Gelukt: {email} is nu je e-mailadres. Daarmee log je voortaan in."
REAUTHENTICATE_WITH_PASSWORD = "Met je wachtwoord"  # noqa: S105 - a label
REAUTHENTICATE_WITH_PASSKEY = "Met je passkey"


class AccountAdapter(DefaultAccountAdapter):
    """allauth does sign-in, sign-out and password reset; sign-up happens only through our invitation form on /auth."""

    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": MESSAGE_TOO_MANY_LOGIN_ATTEMPTS,
        "incorrect_password": MESSAGE_PASSWORD_WRONG,
    }

    def _get_login_attempts_cache_key(self, request, **credentials):
        """Failures count per address *and* client IP (allauth's 'key' limit of login_failed).

        allauth counts per address alone, so five wrong passwords from anywhere locked the real owner out
        everywhere. Per IP and address a guesser is still stopped after five tries (and after ten failures
        from one IP over all addresses, the 'ip' limit), while the owner signs in from their own connection.
        """
        return f"{self.get_client_ip(request)}:{super()._get_login_attempts_cache_key(request, **credentials)}"

    def is_open_for_signup(self, request):
        # allauth's signup flow knows nothing of invitations: it must never create an account.
        return False

    def respond_user_inactive(self, request, user):
        # allauth would send the member to its own 'account inactive' page; we have only /auth.
        messages.error(request, MESSAGE_ACCOUNT_INACTIVE)
        return redirect(settings.LOGIN_URL)

    def render_mail(self, template_prefix, email, context, headers=None):
        # allauth sends what this returns with `msg.send()`: through the mail queue, never SMTP in the request.
        message = super().render_mail(template_prefix, email, context, headers=headers)
        message.connection = queue_connection() or message.connection
        return message

    def clean_password(self, password, user=None):
        # Our Dutch "too short" text first: Django's Dutch catalogue lacks its current one.
        password_length_validate(password)
        return super().clean_password(password, user=user)

    def get_reauthentication_methods(self, user):
        """Asking again before a sensitive action: the password, or a passkey. Not a code from the app or a
        recovery code: reading recovery codes is one of the actions this guards."""
        flows = {flow["id"]: flow for flow in get_reauthentication_flows(user)} if user.is_authenticated else {}
        methods = []
        if "reauthenticate" in flows:
            methods.append(
                {
                    "id": "reauthenticate",
                    "description": REAUTHENTICATE_WITH_PASSWORD,
                    "url": reverse("account_reauthenticate"),
                }
            )
        if Authenticator.Type.WEBAUTHN in flows.get("mfa_reauthenticate", {}).get("types", []):
            methods.append(
                {
                    "id": "mfa_reauthenticate:webauthn",
                    "description": REAUTHENTICATE_WITH_PASSKEY,
                    "url": reverse("mfa_reauthenticate_webauthn"),
                }
            )
        return methods

    def confirm_email(self, request, email_address):
        """The link to a new e-mail address was opened (allauth's confirmation view): our service makes the
        change, in one transaction with the cached pages and the notice to the old address."""
        try:
            email = account_email_change_confirm(email_address_id=email_address.pk)
        except ValidationError as error:
            messages.error(request, error.messages[0])
            return False
        messages.success(request, MESSAGE_EMAIL_CONFIRMED.format(email=email))
        return True
