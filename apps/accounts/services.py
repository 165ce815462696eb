"""Account writes: invitation-only sign-up and the admin role. Keyword-only, each owns its transaction."""

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from apps.invitations.services import (
    MESSAGE_CODE_REQUIRED,
    MESSAGE_EMAIL_INVALID,
    invitation_code_normalize,
    invitation_consume,
    invitation_validate,
)

from .models import User, UserRole
from .passwords import password_length_validate

MESSAGE_NAME_REQUIRED = "Vul je naam in"
MESSAGE_EMAIL_REQUIRED = "Vul je e-mailadres in"
MESSAGE_EMAIL_TAKEN = "Er bestaat al een account met dit e-mailadres. Log in, of kies 'Wachtwoord vergeten?'."
MESSAGE_SIGNUP_FAILED = "Er ging iets mis bij het registreren"
MESSAGE_SELF_DELETE = "Je kunt je eigen account niet verwijderen."
MESSAGE_LAST_ADMIN = "Je kunt de laatste admin niet verwijderen."
MESSAGE_USER_UNKNOWN = "Deze gebruiker bestaat niet (meer)."


def _input_errors(*, code: str, full_name: str, email: str, password: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not code:
        errors["code"] = [MESSAGE_CODE_REQUIRED]
    if not full_name:
        errors["full_name"] = [MESSAGE_NAME_REQUIRED]
    if not email:
        errors["email"] = [MESSAGE_EMAIL_REQUIRED]
    else:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [MESSAGE_EMAIL_INVALID]
    try:
        password_length_validate(password)
        # Whatever else AUTH_PASSWORD_VALIDATORS asks, in Django's Dutch messages.
        password_validation.validate_password(password, User(email=email, full_name=full_name))
    except ValidationError as exc:
        errors["password"] = list(exc.messages)
    return errors


def account_register(
    *,
    code: str | None,
    full_name: str | None,
    email: str | None,
    password: str | None,
    newsletter_consent: bool = False,
) -> User:
    """Create a member from an invitation: the user and the used invitation are written together or not at all.

    Raises ValidationError with a dict of Dutch messages per field (code, full_name, email,
    password), so a form can put each one next to its input.
    """
    code = invitation_code_normalize(code)
    full_name = (full_name or "").strip()
    email = (email or "").strip().lower()
    password = password or ""

    errors = _input_errors(code=code, full_name=full_name, email=email, password=password)
    if errors:
        raise ValidationError(errors)

    # A first look without a lock gives the precise message cheaply, before any write.
    check = invitation_validate(code=code, email=email)
    if not check.is_valid:
        raise ValidationError({"code": [ValidationError(check.message, code=check.code)]})
    if User.objects.filter(email__iexact=email).exists():
        raise ValidationError({"email": [ValidationError(MESSAGE_EMAIL_TAKEN, code="email_taken")]})

    try:
        with transaction.atomic():
            user = User.objects.create_user(
                email, password, full_name=full_name, newsletter_consent=bool(newsletter_consent)
            )
            # Under a row lock: of simultaneous sign-ups with one code, only the first gets past this line;
            # the others raise here and their user is rolled back with the rest of this block.
            invitation_consume(code=code, email=email, user=user)
    except ValidationError as exc:
        raise ValidationError({"code": exc.error_list}) from exc
    except IntegrityError as exc:
        # Another sign-up with the same address committed between our check and our insert.
        if User.objects.filter(email__iexact=email).exists():
            raise ValidationError({"email": [ValidationError(MESSAGE_EMAIL_TAKEN, code="email_taken")]}) from exc
        raise ValidationError(MESSAGE_SIGNUP_FAILED, code="signup_failed") from exc
    return user


def _forget_cached_role(user: User) -> None:
    # User.is_admin caches its answer on the instance; a caller holding the same object must see the change.
    user.__dict__.pop("_is_admin", None)


def admin_grant(*, user: User) -> bool:
    """Give `user` the admin role. True when it was new, False when they already had it."""
    with transaction.atomic():
        _role, created = UserRole.objects.get_or_create(user=user, role=UserRole.Role.ADMIN)
    _forget_cached_role(user)
    return created


def admin_revoke(*, user: User) -> bool:
    """Take the admin role away. True when they had it, False when there was nothing to take."""
    with transaction.atomic():
        deleted, _per_model = UserRole.objects.filter(user=user, role=UserRole.Role.ADMIN).delete()
    _forget_cached_role(user)
    return deleted > 0


# Deleting a member: /admin, the Django admin and the member themselves use the same rule.


class AdminActionError(Exception):
    """A refused admin action; the message is Dutch."""


def user_delete_refusal(*, actor: User, user: User) -> str | None:
    """Why `actor` may not delete `user` (Dutch), or None. The club must always keep an admin."""
    if actor.pk == user.pk:
        return MESSAGE_SELF_DELETE
    admins = UserRole.objects.filter(role=UserRole.Role.ADMIN)
    if admins.filter(user=user).exists() and not admins.exclude(user=user).exists():
        return MESSAGE_LAST_ADMIN
    return None


def user_delete(*, actor: User, user_id: int) -> None:
    """Delete a member with their dips, badges, challenges and participations. Their photo files go
    after the commit (a post_delete signal per dip); invitations they sent stay, without them.
    Used by /admin and the Django admin alike."""
    if actor.pk == user_id:
        raise AdminActionError(MESSAGE_SELF_DELETE)
    with transaction.atomic():
        # Every admin role row locked: two admins deleting each other at once cannot leave none.
        list(UserRole.objects.select_for_update().filter(role=UserRole.Role.ADMIN).values_list("pk", flat=True))
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            raise AdminActionError(MESSAGE_USER_UNKNOWN)
        refusal = user_delete_refusal(actor=actor, user=user)
        if refusal is not None:
            raise AdminActionError(refusal)
        user.delete()
