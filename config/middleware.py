"""Security headers that neither Django 5.2 nor django-csp set, a clear answer to a lost race, and the
member mark the service worker keeps pages under."""

import logging

from django.conf import settings
from django.db import IntegrityError

from apps.accounts.access import MEMBER_HEADER, member_mark
from config.views import conflict

logger = logging.getLogger("koud.errors")

PERMISSIONS_POLICY = "camera=(self), geolocation=(), microphone=(), payment=()"
MEMBER_COOKIE = "koud_member"


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
    """Marks every page of a signed-in member with an opaque id of that member, and keeps that id in a
    cookie the service worker can read.

    The service worker keeps a page for offline use only under this mark, and drops every kept page
    when the mark changes or is missing (signed out): one member's page never reaches another. It shows a
    kept page before asking the server only while the cookie names the same member as the kept pages; the
    cookie comes and goes with the sign-in, so a new session on the phone waits for the network.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        mark = member_mark(user.pk) if user is not None and user.is_authenticated else None
        if mark is not None and response.get("Content-Type", "").startswith("text/html"):
            response[MEMBER_HEADER] = mark
        if mark is not None and request.COOKIES.get(MEMBER_COOKIE) != mark:
            response.set_cookie(
                MEMBER_COOKIE,
                mark,
                max_age=settings.SESSION_COOKIE_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=False,  # read by the service worker (cookieStore); it holds only the opaque mark
                samesite="Lax",
            )
        elif mark is None and MEMBER_COOKIE in request.COOKIES:
            response.delete_cookie(MEMBER_COOKIE, samesite="Lax")
        return response
