"""The "passkeys and second factor" section of /account, with its own data (one query)."""

from allauth.mfa.models import Authenticator
from django import template

from ..second_factor import second_factor_required_message

register = template.Library()


@register.inclusion_tag("accounts/_security.html", takes_context=True)
def security_section(context):
    user = context["request"].user
    authenticators = list(Authenticator.objects.filter(user=user).order_by("created_at"))
    passkeys = [a for a in authenticators if a.type == Authenticator.Type.WEBAUTHN]
    has_app = any(a.type == Authenticator.Type.TOTP for a in authenticators)
    has_recovery_codes = any(a.type == Authenticator.Type.RECOVERY_CODES for a in authenticators)
    return {
        "passkeys": passkeys,
        "has_app": has_app,
        "has_recovery_codes": has_recovery_codes,
        "needs_factor": (user.has_admin_role or user.has_organiser_role) and not (passkeys or has_app),
        "message_needs_factor": second_factor_required_message(user),
    }
