"""Security headers that neither Django 5.2 nor django-csp set, and a clear answer to a lost race."""

import logging

from django.db import IntegrityError

from config.views import conflict

logger = logging.getLogger("koud.errors")

PERMISSIONS_POLICY = "camera=(self), geolocation=(), microphone=(), payment=()"


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
