"""Security headers that Django 5.2 does not set by itself."""

from django.conf import settings
from django.utils.crypto import salted_hmac


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


MEMBER_HEADER = "X-Koud-Member"


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
            response[MEMBER_HEADER] = salted_hmac("koud.service-worker.member", str(user.pk)).hexdigest()[:32]
        return response
