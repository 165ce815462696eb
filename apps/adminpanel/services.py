"""The admin screen's own writes: a role given through the users table (or `grant_organiser`), with what the member
is told."""

from django.db import transaction

from apps.accounts.models import User
from apps.accounts.services import organiser_grant, organiser_revoke
from apps.audit.services import AuditMeta
from apps.core.errors import DomainError
from apps.notifications.services import member_mail_queue

from .notices import ORGANISER_APPOINTED
from .refusals import AdminRefusal

MESSAGE_ORGANISER_SELF = "Je kunt jezelf geen organisator maken: vraag het een andere admin."


def organiser_appoint(*, user: User, meta: AuditMeta) -> bool:
    """Make `user` an organiser, from /admin's users table or `manage.py grant_organiser`. A new organiser gets
    a mail, queued in the same transaction as the role: what she can do now and how to set up the second factor
    it needs. True when she was not an organiser yet."""
    with transaction.atomic():
        created = organiser_grant(user=user, meta=meta)
        if created:
            member_mail_queue(kind=ORGANISER_APPOINTED, user=user, chosen=True)
    return created


def organiser_set(*, actor: User, user: User, organiser: bool, meta: AuditMeta) -> bool:
    """Make `user` an organiser (`organiser`, organiser_appoint) or take it back. Nobody makes themselves
    organiser. True when something changed."""
    if organiser and actor.pk == user.pk:
        raise DomainError(MESSAGE_ORGANISER_SELF, code=AdminRefusal.ORGANISER_SELF, status=403)
    if not organiser:
        return organiser_revoke(user=user, meta=meta)
    return organiser_appoint(user=user, meta=meta)
