from allauth.mfa.models import Authenticator
from django.core.management.base import BaseCommand, CommandError

from apps.accounts.second_factor import second_factor_reset
from apps.accounts.selectors import user_get_by_email
from apps.audit.services import AuditMeta


def _said(removed: dict[str, int]) -> str:
    """{"webauthn": 2, "totp": 1} -> "2 passkeys, de authenticator-app"."""
    parts = []
    if passkeys := removed.get(Authenticator.Type.WEBAUTHN, 0):
        parts.append(f"{passkeys} passkey" if passkeys == 1 else f"{passkeys} passkeys")
    if removed.get(Authenticator.Type.TOTP):
        parts.append("de authenticator-app")
    if removed.get(Authenticator.Type.RECOVERY_CODES):
        parts.append("de herstelcodes")
    return ", ".join(parts)


class Command(BaseCommand):
    help = (
        "Wis de tweede factor (passkeys, authenticator-app, herstelcodes) van een account, voor wie zijn telefoon "
        "kwijt is: daarna logt het wachtwoord weer in. Gebruik: reset_second_factor EMAIL"
    )

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--yes", action="store_true", help="niet vragen, meteen wissen")

    def handle(self, *args, email, yes, **options):
        user = user_get_by_email(email=email)
        if user is None:
            raise CommandError(f"Geen account met e-mailadres {email!r}")
        if not yes:
            answer = input(f"De passkeys, authenticator-app en herstelcodes van {user.email} wissen? Typ ja: ")
            if answer.strip().lower() != "ja":
                raise CommandError("Niets gewist.")
        removed = second_factor_reset(user=user, meta=AuditMeta.command("reset_second_factor"))
        if not removed:
            self.stdout.write(f"{user.email} had geen tweede factor; er is niets gewist.")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"De tweede factor van {user.email} is gewist ({_said(removed)}). Inloggen kan nu met het wachtwoord; "
                "een admin stelt bij het openen van /admin meteen een nieuwe passkey of authenticator-app in."
            )
        )
