"""Removing or switching off an account: the member's own "Account verwijderen", /admin and the Django admin
share one rule, and the club always keeps an active admin (revoking the admin role asks it too, services.py).
Keyword-only, each owns its transaction."""

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.errors import DomainError
from apps.core.page_cache import CLUB, CLUB_CHALLENGES, EVENTS, MEMBER, TOGETHER, pages_changed

from .models import User, UserRole
from .passwords import MESSAGE_PASSWORD_WRONG
from .refusals import AccountRefusal

MESSAGE_SELF_DELETE = "Je kunt je eigen account niet verwijderen."
MESSAGE_LAST_ADMIN = "Je kunt de laatste admin niet verwijderen."
MESSAGE_LAST_ADMIN_OWN_ACCOUNT = (
    "Je bent de laatste admin. Maak eerst iemand anders admin voordat je dit account verwijdert."
)
MESSAGE_LAST_ACTIVE_ADMIN = (
    "Je kunt de laatste actieve admin niet op non-actief zetten. Maak eerst iemand anders admin."
)
MESSAGE_USER_UNKNOWN = "Deze gebruiker bestaat niet (meer)."


class AccountDeletionError(DomainError):
    """A refused deletion; the message is Dutch."""

    status = 409


class AdminActionError(AccountDeletionError):
    """A refusal on the admin screens and commands: a deletion, switching off or revoking the last active admin."""


# The club never has zero active admins: no removal or deactivation takes away the last active holder of
# the admin role. The role counts, not the second factor: a role holder can add a factor on their own.


def active_admin_ids(*, lock: bool) -> set[int]:
    """The active holders of the admin role. With `lock` (inside a transaction), every admin role row is
    locked first: of two changes that could each take away the last active admin (two admins removing or
    switching off each other at once), the second waits for the first and then sees what it did."""
    roles = UserRole.objects.filter(role=UserRole.Role.ADMIN).order_by("pk")
    admin_ids = list((roles.select_for_update() if lock else roles).values_list("user_id", flat=True))
    return set(User.objects.filter(pk__in=admin_ids, is_active=True).values_list("pk", flat=True))


def is_last_active_admin(admin_ids: set[int], user_id: int) -> bool:
    return user_id in admin_ids and not admin_ids - {user_id}


def user_delete_refusal(*, actor: User, user: User) -> str | None:
    """Why `actor` may not delete `user` on the admin screens (Dutch), or None. Asked before confirming;
    `user_delete` asks again under the locks."""
    if actor.pk == user.pk:
        return MESSAGE_SELF_DELETE
    if is_last_active_admin(active_admin_ids(lock=False), user.pk):
        return MESSAGE_LAST_ADMIN
    return None


def _user_remove(*, user_id: int, last_admin_message: str, error: type[AccountDeletionError]) -> None:
    """Remove the user with their challenges, dips, badges and event sign-ups (the database cascades);
    their photo files go after the commit (the post_delete signal of each dip, on local disk or S3).
    Invitations they sent stay, without them. The club always keeps an active admin (the admin role rows
    are locked first, then the user)."""
    with transaction.atomic():
        admins = active_admin_ids(lock=True)
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            raise error(MESSAGE_USER_UNKNOWN, code=AccountRefusal.USER_UNKNOWN)
        if is_last_active_admin(admins, user.pk):
            raise error(last_admin_message, code=AccountRefusal.LAST_ADMIN)
        user.delete()
        # Their club challenge entries went with them: the number taking part and a club goal's total moved.
        pages_changed(CLUB, CLUB_CHALLENGES)


def user_deactivation_refusal(*, user_id: int) -> str | None:
    """Why this account may not be switched off (Dutch), or None: a form asks it to show the reason at the
    checkbox; `user_save` asks again under the locks."""
    return MESSAGE_LAST_ACTIVE_ADMIN if is_last_active_admin(active_admin_ids(lock=False), user_id) else None


def user_save(*, user: User) -> User:
    """Save an account as the Django admin's form changed it (a new one too). Switching off the last
    active admin is refused with AdminActionError, under the lock of every admin role row."""
    with transaction.atomic():
        if user.pk is not None and not user.is_active:
            admins = active_admin_ids(lock=True)
            User.objects.select_for_update().filter(pk=user.pk).first()  # roles first, then the user, as _user_remove
            if is_last_active_admin(admins, user.pk):
                raise AdminActionError(MESSAGE_LAST_ACTIVE_ADMIN, code=AccountRefusal.LAST_ADMIN)
        if user.pk is not None:
            # save() writes every field: the version of their pages as read now, never an older one, so that
            # it moves on from there (an old number could be the key of a page cached before).
            current = User.objects.select_for_update().filter(pk=user.pk).values_list("pages_version", flat=True)
            user.pages_version = current.first() or 0
        user.save()
        # Their name on their own pages, on the events' and afspraken's lists and replies; the newsletter's
        # subscribers (the active members who opted in).
        pages_changed(MEMBER, CLUB, EVENTS, TOGETHER, user_ids=[user.pk])
    return user


def user_delete(*, actor: User, user_id: int, meta: AuditMeta | None = None) -> None:
    """An admin deletes a member (/admin and the Django admin); never their own account here. Recorded in the
    audit log (the member's id only) in the same transaction."""
    if actor.pk == user_id:
        raise AdminActionError(MESSAGE_SELF_DELETE, code=AccountRefusal.SELF_DELETE)
    meta = meta or AuditMeta(actor_id=actor.pk, actor_label=actor.email)
    with transaction.atomic():
        _user_remove(user_id=user_id, last_admin_message=MESSAGE_LAST_ADMIN, error=AdminActionError)
        audit_record(meta=meta, action=AuditAction.USER_DELETED, target_type="user", target_id=user_id)


def account_delete(*, user: User, password: str | None) -> None:
    """The member removes their own account, confirmed with their password."""
    if not user.check_password(password or ""):
        raise ValidationError({"password": [ValidationError(MESSAGE_PASSWORD_WRONG, code="password_wrong")]})
    _user_remove(user_id=user.pk, last_admin_message=MESSAGE_LAST_ADMIN_OWN_ACCOUNT, error=AccountDeletionError)
