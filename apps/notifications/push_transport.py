"""Where a push may go (the HTTP session that takes it there: push_session.py). Nothing a phone sent is trusted.

A push endpoint is a URL the member's browser gave us; the worker POSTs to it with the site's VAPID header.
So it is accepted only when it is a known push service (settings.WEBPUSH_ALLOWED_HOSTS: FCM, Mozilla's
autopush, Apple, Windows; an operator may add one), over https on port 443 without user info, and only when
every address its name resolves to is public. Checked when a browser subscribes and again at each delivery;
the connection goes to the address that was checked (resolved once and pinned, the name kept for TLS and the
Host header), so a DNS answer that changes in between (rebinding) reaches nothing; redirects are never
followed. The tests' receiver speaks http on loopback: allowed only with WEBPUSH_ALLOW_INSECURE_LOOPBACK,
which production refuses.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

ENDPOINT_MAX = 1000


class PushNotConfigured(RuntimeError):
    pass


def push_configured() -> bool:
    """Whether this site pushes at all: its VAPID keys are set."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


class EndpointRefused(Exception):
    """Not a push service this site sends to (or not at a public address): no connection is made."""


class EndpointUnresolved(EndpointRefused):
    """The name did not resolve (DNS down, for now): no connection now; a push is tried again later."""


def _host_allowed(host: str) -> bool:
    for pattern in settings.WEBPUSH_ALLOWED_HOSTS:
        pattern = pattern.strip().lower()
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and len(host) > len(pattern) - 1:
                return True
        elif pattern and host == pattern:
            return True
    return False


def _loopback_literal(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parts(endpoint: object):
    """The endpoint's scheme, host and port when its form is acceptable, else None."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > ENDPOINT_MAX:
        return None
    if not endpoint.isascii() or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in endpoint):
        return None
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host or "@" in parts.netloc:
        return None  # user info: never sent anywhere
    return parts.scheme, host, port


def _test_loopback(scheme: str, host: str) -> bool:
    return scheme == "http" and settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK and _loopback_literal(host)


def endpoint_allowed(endpoint: object) -> bool:
    """The endpoint's form: a known push service over https on port 443 (or the tests' loopback receiver)."""
    parts = _parts(endpoint)
    if parts is None:
        return False
    scheme, host, port = parts
    if _test_loopback(scheme, host):
        return True
    return scheme == "https" and port in (None, 443) and _host_allowed(host)


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def vetted_address(endpoint: str) -> str:
    """The address to connect to for this endpoint: its form allowed, its name resolved, and every address it
    resolves to public (loopback for the tests' receiver). Raises EndpointRefused."""
    if not endpoint_allowed(endpoint):
        raise EndpointRefused("not a push service")
    parts = _parts(endpoint)
    assert parts is not None
    scheme, host, port = parts
    try:
        answers = socket.getaddrinfo(host, port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise EndpointUnresolved(f"cannot resolve: {error}") from error
    addresses = [str(answer[4][0]) for answer in answers]
    if not addresses:
        raise EndpointRefused("no address")
    if _test_loopback(scheme, host):
        if not all(ipaddress.ip_address(address.split("%", 1)[0]).is_loopback for address in addresses):
            raise EndpointRefused("not loopback")
        return addresses[0]
    if not all(_public(address) for address in addresses):
        raise EndpointRefused("an address that is not public")
    return addresses[0]
