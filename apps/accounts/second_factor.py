"""Admins can delete members and see every photo: the admin role needs a second factor.

An admin without a passkey or an authenticator app is sent to set one up before /admin (our screen
and its JSON endpoints) or /django-admin/ opens. Members are not asked; for them it is optional.
"""

from allauth.mfa.models import Authenticator
from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

MESSAGE_SECOND_FACTOR_REQUIRED = (
    "Als admin heb je een tweede factor nodig: voeg een passkey of een authenticator-app toe voordat je verder gaat."
)
SECOND_FACTOR_TYPES = (Authenticator.Type.WEBAUTHN, Authenticator.Type.TOTP)
# Where an admin without a factor is sent: the passkeys and second factor section of /account.
SETUP_URL_NAME = "account"
SETUP_ANCHOR = "#tweede-factor"


def has_second_factor(user) -> bool:
    return Authenticator.objects.filter(user=user, type__in=SECOND_FACTOR_TYPES).exists()


def _is_admin_path(path: str) -> bool:
    return path == "/admin" or path.startswith("/admin/") or path.startswith("/django-admin/")


class AdminSecondFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if (
            _is_admin_path(request.path_info)
            and user.is_authenticated
            and user.is_admin
            and not has_second_factor(user)
        ):
            if request.path_info.startswith("/admin/api/"):
                return JsonResponse({"error": MESSAGE_SECOND_FACTOR_REQUIRED}, status=403)
            messages.warning(request, MESSAGE_SECOND_FACTOR_REQUIRED)
            return redirect(reverse(SETUP_URL_NAME) + SETUP_ANCHOR)
        return self.get_response(request)
