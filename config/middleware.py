"""Security headers that neither Django 5.2 nor django-csp set, a clear answer to a lost race, and the
member mark the service worker keeps pages under."""

import logging

from django.db import IntegrityError

from apps.accounts.access import member_mark
from config.views import conflict

logger = logging.getLogger("koud.errors")

PERMISSIONS_POLICY = "camera=(self), geolocation=(), microphone=(), payment=()"
MEMBER_HEADER = "X-Koud-Member"


class PermissionsPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class IntegrityErrorMiddleware:
    """A unique or check constraint that a race can still trip (two taps, two tabs, two admins) is a 409 with
    a Dutch message, never a 500. The database already refused the write, so nothing half-written stays."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, IntegrityError):
            return None
        logger.warning("IntegrityError on %s %s", request.method, request.path, exc_info=exception)
        return conflict(request)


class MemberPageMarkMiddleware:
    """Marks every page of a signed-in member with an opaque id of that member.

    The service worker keeps a page for offline use only under this mark, and drops every kept page
    when the mark changes or is missing (signed out): one member's page never reaches another.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and response.get("Content-Type", "").startswith("text/html"):
            response[MEMBER_HEADER] = member_mark(user.pk)
        return response
