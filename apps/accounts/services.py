"""Account writes: invitation-only sign-up, the member's profile, e-mail address and password, and the roles
(admin, organiser). Removing or switching off an account: removal.py. Keyword-only, each owns its transaction."""

from allauth.account.models import EmailAddress
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.page_cache import CLUB, EVENTS, MEMBER, TOGETHER, pages_changed
from apps.invitations.services import (
    MESSAGE_CODE_REQUIRED,
    MESSAGE_EMAIL_INVALID,
    invitation_code_normalize,
    invitation_consume,
    invitation_validate,
)

from .models import ConsentSource, User, UserRole
from .passwords import MESSAGE_PASSWORD_WRONG, password_length_validate
from .refusals import AccountRefusal
from .removal import AdminActionError, active_admin_ids, is_last_active_admin
from .signals import email_change_requested, email_changed

MESSAGE_NAME_REQUIRED = "Vul je naam in"
MESSAGE_EMAIL_REQUIRED = "Vul je e-mailadres in"
MESSAGE_EMAIL_TAKEN = "Er bestaat al een account met dit e-mailadres. Log in, of kies 'Wachtwoord vergeten?'."
MESSAGE_SIGNUP_FAILED = "Er ging iets mis bij het registreren"
MESSAGE_LAST_ADMIN_ROLE = "Je kunt de admin-rol van de laatste actieve admin niet intrekken."
MESSAGE_PASSWORD_SAME = "Kies een ander wachtwoord dan je huidige."  # noqa: S105 - a message
MESSAGE_EMAIL_LINK_UNUSABLE = (
    "Deze link werkt niet (meer): hij is al gebruikt, verlopen of vervangen door een nieuwere. "
    "Vraag op Mijn account een nieuwe aan."
)
MESSAGE_EMAIL_TAKEN_SINCE = "Dit e-mailadres is inmiddels van een ander account. Kies op Mijn account een ander adres."


def _input_errors(*, code: str, full_name: str, email: str, password: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not code:
        errors["code"] = [MESSAGE_CODE_REQUIRED]
    errors |= _profile_errors(full_name=full_name, email=email)
    password_errors = _password_errors(password, User(email=email, full_name=full_name))
    if password_errors:
        errors["password"] = password_errors
    return errors


def _profile_errors(*, full_name: str, email: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not full_name:
        errors["full_name"] = [MESSAGE_NAME_REQUIRED]
    if not email:
        errors["email"] = [MESSAGE_EMAIL_REQUIRED]
    else:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [MESSAGE_EMAIL_INVALID]
    return errors


def _password_errors(password: str, user: User) -> list[str]:
    try:
        password_length_validate(password)
        # Whatever else AUTH_PASSWORD_VALIDATORS asks, in Django's Dutch messages.
        password_validation.validate_password(password, user)
    except ValidationError as exc:
        return list(exc.messages)
    return []


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
                email,
                password,
                full_name=full_name,
                newsletter_consent=bool(newsletter_consent),
                # The choice, when and where it was made (AVG: the club can show the consent).
                newsletter_consent_at=timezone.now(),
                newsletter_consent_source=ConsentSource.SIGN_UP,
            )
            # Under a row lock: of simultaneous sign-ups with one code, only the first gets past this line;
            # the others raise here and their user is rolled back with the rest of this block.
            invitation_consume(code=code, email=email, user=user)
            pages_changed(CLUB)  # the club's members on /admin
    except ValidationError as exc:
        raise ValidationError({"code": exc.error_list}) from exc
    except IntegrityError as exc:
        # Another sign-up with the same address committed between our check and our insert.
        if User.objects.filter(email__iexact=email).exists():
            raise ValidationError({"email": [ValidationError(MESSAGE_EMAIL_TAKEN, code="email_taken")]}) from exc
        raise ValidationError(MESSAGE_SIGNUP_FAILED, code="signup_failed") from exc
    return user


def _role_audited(*, meta: AuditMeta | None, action: AuditAction, user: User, role: str) -> None:
    """A role given or taken, in the audit log (without a request: the system did it)."""
    meta = meta or AuditMeta(actor_id=None, actor_label="systeem")
    audit_record(meta=meta, action=action, target_type="user", target_id=user.pk, detail=role)


def role_grant(*, user: User, role: UserRole.Role, meta: AuditMeta | None = None) -> bool:
    """Give `user` a role (admin or organiser). True when it was new, False when they already had it. A new
    role is recorded in the audit log in the same transaction."""
    with transaction.atomic():
        _role, created = UserRole.objects.get_or_create(user=user, role=role)
        if created:
            _role_audited(meta=meta, action=AuditAction.ROLE_GRANTED, user=user, role=role)
        pages_changed(MEMBER, user_ids=[user.pk])  # their pages' header shows the way to /admin
    user.forget_admin_standing()  # a caller holding this object sees the change
    return created


def role_revoke(*, user: User, role: UserRole.Role, meta: AuditMeta | None = None) -> bool:
    """Take a role away. True when they had it, False when there was nothing to take. The last active admin
    keeps the admin role (AdminActionError)."""
    with transaction.atomic():
        if role == UserRole.Role.ADMIN and is_last_active_admin(active_admin_ids(lock=True), user.pk):
            raise AdminActionError(MESSAGE_LAST_ADMIN_ROLE, code=AccountRefusal.LAST_ADMIN)
        deleted, _per_model = UserRole.objects.filter(user=user, role=role).delete()
        if deleted:
            _role_audited(meta=meta, action=AuditAction.ROLE_REVOKED, user=user, role=role)
        pages_changed(MEMBER, user_ids=[user.pk])
    user.forget_admin_standing()  # a caller holding this object sees the change
    return deleted > 0


def admin_grant(*, user: User, meta: AuditMeta | None = None) -> bool:
    return role_grant(user=user, role=UserRole.Role.ADMIN, meta=meta)


def admin_revoke(*, user: User, meta: AuditMeta | None = None) -> bool:
    return role_revoke(user=user, role=UserRole.Role.ADMIN, meta=meta)


def organiser_grant(*, user: User, meta: AuditMeta | None = None) -> bool:
    """ "Organisator": events, attendance and club messages on /admin (with a second factor, as admins)."""
    return role_grant(user=user, role=UserRole.Role.ORGANISER, meta=meta)


def organiser_revoke(*, user: User, meta: AuditMeta | None = None) -> bool:
    return role_revoke(user=user, role=UserRole.Role.ORGANISER, meta=meta)


def _email_taken(email: str, *, user: User) -> bool:
    """Another account uses this address, as its login or as an address allauth verified for it."""
    return (
        User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists()
        or EmailAddress.objects.filter(email__iexact=email, verified=True).exclude(user=user).exists()
    )


def account_profile_update(
    *, user: User, full_name: str | None, email: str | None, newsletter_consent: bool
) -> str | None:
    """Change the member's own name and newsletter consent at once. A new e-mail address (unique, whatever its
    case) is only asked for here: a link goes to it, and it replaces the old one when that link is opened
    (`account_email_change_confirm`). Returns the address the link goes to, or None when the address stays.

    Raises ValidationError with Dutch messages per field (full_name, email); nothing changes then.
    """
    full_name = (full_name or "").strip()
    email = (email or "").strip().lower()
    errors = _profile_errors(full_name=full_name, email=email)
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        new_email = email if email != locked.email.lower() else None
        if new_email and _email_taken(new_email, user=locked):
            raise ValidationError({"email": [ValidationError(MESSAGE_EMAIL_TAKEN, code="email_taken")]})
        fields = ["full_name", "newsletter_consent"]
        if locked.newsletter_consent != bool(newsletter_consent):  # a new choice: when and where
            locked.newsletter_consent_at, locked.newsletter_consent_source = timezone.now(), ConsentSource.ACCOUNT
            fields += ["newsletter_consent_at", "newsletter_consent_source"]
        locked.full_name, locked.newsletter_consent = full_name, bool(newsletter_consent)
        locked.save(update_fields=fields)
        # The dashboard greets them by name; the newsletter's subscribers on /admin; who goes, by name, on /events
        # and the afspraken, and who wrote the replies there.
        pages_changed(MEMBER, CLUB, EVENTS, TOGETHER, user_ids=[user.pk])
        if new_email:
            _email_change_request(user=locked, email=new_email)
    user.full_name, user.newsletter_consent = full_name, bool(newsletter_consent)
    return new_email


def _email_change_request(*, user: User, email: str) -> None:
    """allauth's change-email records: the address in use (primary, verified) and one waiting for its link.
    An earlier request for another address is replaced, so only the latest link works."""
    current, _created = EmailAddress.objects.get_or_create(
        user=user, email=user.email.lower(), defaults={"primary": True, "verified": True}
    )
    EmailAddress.objects.filter(user=user).exclude(pk=current.pk).exclude(email=email).delete()
    if not (current.primary and current.verified):
        current.primary = current.verified = True
        current.save(update_fields=["primary", "verified"])
    pending, _created = EmailAddress.objects.get_or_create(
        user=user, email=email, defaults={"primary": False, "verified": False}
    )
    email_change_requested.send(sender=User, user=user, email_address=pending)


def account_email_change_confirm(*, email_address_id: int) -> str:
    """The link in the confirmation mail was opened: the new address replaces the old one (for signing in,
    mail and password reset), and the old address is told. Returns the new address.

    Raises ValidationError with a Dutch message when the request is gone (replaced or used already) or
    another account took the address in the meantime (then the request goes too)."""
    user_id = EmailAddress.objects.filter(pk=email_address_id).values_list("user_id", flat=True).first()
    taken = False
    try:
        with transaction.atomic():
            user = User.objects.select_for_update().filter(pk=user_id).first()
            address = EmailAddress.objects.select_for_update().filter(pk=email_address_id, verified=False).first()
            if user is None or address is None or address.user_id != user.pk:
                raise ValidationError(MESSAGE_EMAIL_LINK_UNUSABLE, code="email_link_unusable")
            taken = _email_taken(address.email, user=user)
            if taken:
                address.delete()
            else:
                old_email = user.email
                EmailAddress.objects.filter(user=user).exclude(pk=address.pk).delete()
                address.verified = address.primary = True
                address.save(update_fields=["verified", "primary"])
                user.email = address.email
                user.save(update_fields=["email"])
                pages_changed(MEMBER, CLUB, user_ids=[user.pk])  # the newsletter's subscribers on /admin
                email_changed.send(sender=User, user=user, old_email=old_email)
    except IntegrityError:  # another account took the address between our check and our write
        taken = True
    if taken:
        raise ValidationError(MESSAGE_EMAIL_TAKEN_SINCE, code="email_taken")
    return address.email


def account_password_change(*, user: User, current_password: str | None, new_password: str | None) -> None:
    """Change the member's password; the current one is asked first. Raises ValidationError per field
    (current_password, new_password). The caller keeps the session signed in (update_session_auth_hash)."""
    current_password = current_password or ""
    new_password = new_password or ""
    if not user.check_password(current_password):
        raise ValidationError({"current_password": [ValidationError(MESSAGE_PASSWORD_WRONG, code="password_wrong")]})
    errors = _password_errors(new_password, user)
    if not errors and new_password == current_password:
        errors = [MESSAGE_PASSWORD_SAME]
    if errors:
        raise ValidationError({"new_password": errors})
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
