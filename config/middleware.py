"""Security headers that Django 5.2 does not set by itself, and a clear answer to a lost race."""

import logging

from django.conf import settings
from django.db import IntegrityError

from config.views import conflict

logger = logging.getLogger("koud.errors")


def _content_security_policy() -> str:
    script_src = style_src = connect_src = "'self'"
    if settings.DJANGO_VITE["default"]["dev_mode"]:
        # Development only: the Vite dev server serves modules, injects styles and hot-reloads over its port.
        dev = f"http://localhost:{settings.DJANGO_VITE['default']['dev_server_port']}"
        script_src += f" {dev}"
        style_src += f" {dev} 'unsafe-inline'"
        connect_src += f" {dev} {dev.replace('http', 'ws')}"
    directives = {
        "default-src": "'self'",
        "script-src": script_src,
        "style-src": style_src,
        "img-src": "'self' data: blob:" + _photo_origin(),
        "font-src": "'self'",
        "connect-src": connect_src,
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def _photo_origin() -> str:
    # Signed photo URLs point at the object store; the browser must be allowed to load them.
    endpoint = settings.STORAGES["photos"].get("OPTIONS", {}).get("endpoint_url")
    return f" {endpoint}" if endpoint else ""


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = _content_security_policy()

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", self.policy)
        response.setdefault("Permissions-Policy", "camera=(self), geolocation=(), microphone=(), payment=()")
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
