"""Admin actions that change data."""

from apps.accounts.models import User
from apps.accounts.services import AccountDeletionError, user_remove

MESSAGE_SELF_DELETE = "Je kunt je eigen account niet verwijderen."


class AdminActionError(Exception):
    """A refused admin action; the message is Dutch."""


def user_delete(*, actor: User, user_id: int) -> None:
    """Delete a member from the admin screen: the same removal as a member's own (user_remove), but never
    the admin's own account here (that goes through /account, with the password)."""
    if actor.pk == user_id:
        raise AdminActionError(MESSAGE_SELF_DELETE)
    try:
        user_remove(user_id=user_id)
    except AccountDeletionError as error:
        raise AdminActionError(str(error)) from error
