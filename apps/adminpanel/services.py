"""Admin actions that change data."""

from django.db import transaction

from apps.accounts.models import User, UserRole

MESSAGE_SELF_DELETE = "Je kunt je eigen account niet verwijderen."
MESSAGE_LAST_ADMIN = "Je kunt de laatste admin niet verwijderen."
MESSAGE_USER_UNKNOWN = "Deze gebruiker bestaat niet (meer)."


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
