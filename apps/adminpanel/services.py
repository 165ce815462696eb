"""Admin actions that change data."""

from django.db import transaction

from apps.accounts.models import User

MESSAGE_SELF_DELETE = "Je kunt je eigen account niet verwijderen."
MESSAGE_USER_UNKNOWN = "Deze gebruiker bestaat niet (meer)."


class AdminActionError(Exception):
    """A refused admin action; the message is Dutch."""


def user_delete(*, actor: User, user_id: int) -> None:
    """Delete a member with their dips, badges, challenges and participations. Their photo files go
    after the commit (a post_delete signal per dip); invitations they sent stay, without them."""
    if actor.pk == user_id:
        raise AdminActionError(MESSAGE_SELF_DELETE)
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            raise AdminActionError(MESSAGE_USER_UNKNOWN)
        user.delete()
