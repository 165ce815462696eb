"""Admins can delete members and see every photo: the admin role needs a second factor.

Whether a user acts as admin is one predicate, `User.is_admin` (the role and a passkey or an
authenticator app); every admin-only decision asks it, so a role holder without a factor is refused
like a member everywhere. This middleware adds only the way out: such a role holder who opens /admin
(our screen and its JSON endpoints) or /django-admin/ is sent to set up a factor on /account.
Members are not asked; for them a factor is optional.
"""

from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_added, authenticator_removed
from django.contrib import messages
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.shortcuts import redirect
from django.urls import reverse

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.errors import error_response
from apps.core.page_cache import MEMBER, pages_changed

from .models import AdminStanding
from .refusals import AccountRefusal

MESSAGE_SECOND_FACTOR_REQUIRED = (
    "Als admin heb je een tweede factor nodig: voeg een passkey of een authenticator-app toe voordat je verder gaat."
)
MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED = (
    "Als organisator heb je een tweede factor nodig: voeg een passkey of een authenticator-app toe voordat je "
    "verder gaat."
)
# Where an admin without a factor is sent: the passkeys and second factor section of /account.
SETUP_URL_NAME = "account"
SETUP_ANCHOR = "#tweede-factor"


def admin_without_second_factor(user) -> bool:
    """True for a holder of the admin or organiser role who has no passkey or authenticator app yet. The
    same one query as `User.is_admin`, kept on the user: asking both costs one query per request."""
    standing: AdminStanding = user.admin_standing
    return (standing.has_role or standing.has_organiser_role) and not standing.has_second_factor


def second_factor_required_message(user) -> str:
    """The way to a factor names the role she holds: an organiser is not told she is an admin."""
    return MESSAGE_SECOND_FACTOR_REQUIRED if user.admin_standing.has_role else MESSAGE_ORGANISER_SECOND_FACTOR_REQUIRED


def _is_admin_path(path: str) -> bool:
    return path == "/admin" or path.startswith("/admin/") or path.startswith("/django-admin/")


class AdminSecondFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if _is_admin_path(request.path_info) and user.is_authenticated and admin_without_second_factor(user):
            message = second_factor_required_message(user)
            if request.path_info.startswith("/admin/api/"):
                return error_response(message, code=AccountRefusal.SECOND_FACTOR_REQUIRED, status=403)
            messages.warning(request, message)
            return redirect(reverse(SETUP_URL_NAME) + SETUP_ANCHOR)
        return self.get_response(request)


@receiver([authenticator_added, authenticator_removed], dispatch_uid="accounts_admin_standing_changed")
def _second_factor_changed(sender, user, **kwargs):
    """A factor added or removed can make a role holder act as admin, or stop: the rest of this request
    asks anew, and their cached pages (whose header shows the way to /admin) are rendered anew."""
    user.forget_admin_standing()
    with transaction.atomic():  # allauth may have committed the factor already: a later move is still fresh
        pages_changed(MEMBER, user_ids=[user.pk])


@receiver([post_save, post_delete], sender=Authenticator, dispatch_uid="accounts_authenticator_shown_changed")
def _authenticator_written(sender, instance: Authenticator, **kwargs):
    """A passkey renamed (allauth sends no signal for it) or a factor written or deleted past allauth's flows
    (the Django admin): /account lists the member's passkeys and factors, so it is rendered anew."""
    with transaction.atomic():
        pages_changed(MEMBER, user_ids=[instance.user_id])


def second_factor_remove(*, authenticator: Authenticator, meta: AuditMeta) -> None:
    """An admin removes a factor a member lost (the Django admin): recorded as a second-factor reset, in the
    same transaction."""
    with transaction.atomic():
        user_id = authenticator.user_id
        authenticator.delete()
        audit_record(meta=meta, action=AuditAction.SECOND_FACTOR_RESET, target_type="user", target_id=user_id)


def second_factor_reset(*, user, meta: AuditMeta) -> dict[str, int]:
    """For an operator (manage.py reset_second_factor), when a member, typically the last admin, lost the
    phone: every passkey, authenticator app and recovery code of `user` goes, so the password signs in again.
    An admin is then asked for a new factor on /admin. Recorded in the audit log in the same transaction.
    Returns how many of each type went."""
    with transaction.atomic():
        type(user).objects.select_for_update().filter(pk=user.pk).first()  # one reset at a time per member
        factors = list(Authenticator.objects.filter(user=user).values_list("type", flat=True))
        Authenticator.objects.filter(user=user).delete()  # post_delete: their /account renders anew
        pages_changed(MEMBER, user_ids=[user.pk])
        audit_record(meta=meta, action=AuditAction.SECOND_FACTOR_RESET, target_type="user", target_id=user.pk)
    user.forget_admin_standing()
    return {kind: factors.count(kind) for kind in sorted(set(factors))}
