"""The password rule's one home is the MinimumLengthValidator in AUTH_PASSWORD_VALIDATORS; the rest reads it here.

Django's Dutch catalogue lacks its current "too short" text (it would show in English), so every place
that checks the length uses this Dutch message instead.
"""

from django.contrib.auth.password_validation import MinimumLengthValidator, get_default_password_validators
from django.core.exceptions import ValidationError

MESSAGE_TOO_SHORT = "Je wachtwoord moet minstens {min_length} tekens lang zijn"
HELP_TEXT_MIN_LENGTH = "Minimaal {min_length} tekens"
MESSAGE_PASSWORD_WRONG = "Dit wachtwoord klopt niet."  # noqa: S105 - a message, not a password


def password_min_length() -> int:
    # Django caches the configured validators (and forgets them when a test overrides the setting).
    lengths = [v.min_length for v in get_default_password_validators() if isinstance(v, MinimumLengthValidator)]
    return max(lengths, default=0)


def password_help_text() -> str:
    return HELP_TEXT_MIN_LENGTH.format(min_length=password_min_length())


def password_length_validate(password: str) -> None:
    """Raise the Dutch 'too short' message when `password` is below the configured minimum."""
    min_length = password_min_length()
    if len(password) < min_length:
        raise ValidationError(MESSAGE_TOO_SHORT.format(min_length=min_length), code="password_too_short")
