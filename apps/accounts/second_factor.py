"""Admins can delete members and see every photo: the admin role needs a second factor.

An admin without a passkey or an authenticator app is sent to set one up before /admin (our screen
and its JSON endpoints) or /django-admin/ opens. Members are not asked; for them it is optional.
"""

from allauth.mfa.models import Authenticator
from django.contrib import messages
from django.db.models import Exists, OuterRef
from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

from .models import UserRole

MESSAGE_SECOND_FACTOR_REQUIRED = (
    "Als admin heb je een tweede factor nodig: voeg een passkey of een authenticator-app toe voordat je verder gaat."
)
SECOND_FACTOR_TYPES = (Authenticator.Type.WEBAUTHN, Authenticator.Type.TOTP)
# Where an admin without a factor is sent: the passkeys and second factor section of /account.
SETUP_URL_NAME = "account"
SETUP_ANCHOR = "#tweede-factor"


def admin_without_second_factor(user) -> bool:
    """True for an admin who has no passkey or authenticator app yet. One query for the role and the
    factor together (it runs on every admin request); the role is kept on the user, so `User.is_admin`
    asks no more in this request."""
    factors = Authenticator.objects.filter(user=OuterRef("user"), type__in=SECOND_FACTOR_TYPES)
    has_factor = (
        UserRole.objects.filter(user=user, role=UserRole.Role.ADMIN).values_list(Exists(factors), flat=True).first()
    )  # None: not an admin
    user._is_admin = has_factor is not None
    return has_factor is False


def _is_admin_path(path: str) -> bool:
    return path == "/admin" or path.startswith("/admin/") or path.startswith("/django-admin/")


class AdminSecondFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if _is_admin_path(request.path_info) and user.is_authenticated and admin_without_second_factor(user):
            if request.path_info.startswith("/admin/api/"):
                return JsonResponse({"error": MESSAGE_SECOND_FACTOR_REQUIRED}, status=403)
            messages.warning(request, MESSAGE_SECOND_FACTOR_REQUIRED)
            return redirect(reverse(SETUP_URL_NAME) + SETUP_ANCHOR)
        return self.get_response(request)
