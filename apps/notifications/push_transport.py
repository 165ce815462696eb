"""Where a push may go (the HTTP session that takes it there: push_session.py). Nothing a phone sent is trusted.

A push endpoint is a URL the member's browser gave us; the worker POSTs to it with the site's VAPID header.
So it is accepted only when it is a known push service (settings.WEBPUSH_ALLOWED_HOSTS: FCM, Mozilla's
autopush, Apple, Windows; an operator may add one), over https on port 443 without user info, and only when
every address its name resolves to is public, with the IPv4 address any of them wraps: a tunnel's (6to4,
ISATAP) must be public too, a translated one (IPv4-mapped, NAT64) is judged by the IPv4 address it reaches;
so 2002:7f00:1:: (6to4 around 127.0.0.1) is refused. Teredo (2001::/32), IPv4-compatible (::/96) and
local-use NAT64 (64:ff9b:1::/48) are refused whole: none is a global address (`is_global`, `is_reserved`:
2001::/23 and ::/8 in IANA's registries), whatever they wrap. Checked when a browser subscribes (the lookup
bounded there: it runs inside the web request) and again at each delivery; the connection goes to the
address that was checked (resolved once and pinned, the name kept for TLS and the Host header), so a DNS
answer that changes in between (rebinding) reaches nothing; redirects are never followed. The tests'
receiver speaks http on loopback: allowed only with WEBPUSH_ALLOW_INSECURE_LOOPBACK, which production
refuses.
"""

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from django.conf import settings

ENDPOINT_MAX = 1000
# The bounded lookups of subscribing browsers: a resolver that hangs holds at most these threads; a lookup
# queued behind them times out like one that runs (threads start at the first lookup, not at import).
_LOOKUPS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="push-lookup")
# NAT64: the well-known prefix carries the IPv4 address in its last 32 bits. It lies in ::/8, which is
# reserved: judged by the address inside before that would refuse a DNS64 network's every answer.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class PushNotConfigured(RuntimeError):
    pass


def push_configured() -> bool:
    """Whether this site pushes at all: its VAPID keys are set."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


class EndpointRefused(Exception):
    """Not a push service this site sends to (or not at a public address): no connection is made."""


class EndpointUnresolved(EndpointRefused):
    """The name did not resolve (DNS down, for now): no connection now; a push is tried again later."""


class EndpointLookupSlow(EndpointUnresolved):
    """The name did not resolve within the bound the caller gave (a subscribing browser waits for it)."""


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


def _routable(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def _tunnel_ends(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a packet to this global IPv6 address is tunnelled through: 6to4's relay, ISATAP's
    (its interface id ::0:5efe:a.b.c.d or ::200:5efe:a.b.c.d). Teredo's are not asked: 2001::/32 is not global."""
    ends: list[ipaddress.IPv4Address] = []
    if ip.sixtofour is not None:
        ends.append(ip.sixtofour)
    if (int(ip) >> 32) & 0xFDFFFFFF == 0x5EFE:
        ends.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return ends


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _routable(ip)
    # Translated: a connection reaches the IPv4 address inside (a dual-stack socket, a DNS64 network).
    if ip.ipv4_mapped is not None:
        return _routable(ip.ipv4_mapped)
    if ip in _NAT64:
        return _routable(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return _routable(ip) and all(_routable(end) for end in _tunnel_ends(ip))


def _resolve(host: str, port: int, timeout: float | None) -> list[str]:
    if timeout is None:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    else:
        # getaddrinfo itself has no bound: it runs in a thread this request stops waiting for.
        lookup = _LOOKUPS.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
        try:
            answers = lookup.result(timeout=timeout)
        except TimeoutError as error:
            lookup.cancel()
            raise EndpointLookupSlow(f"no answer within {timeout} s") from error
    return [str(answer[4][0]) for answer in answers]


def vetted_address(endpoint: str, *, lookup_timeout: float | None = None) -> str:
    """The address to connect to for this endpoint: its form allowed, its name resolved, and every address it
    resolves to public (loopback for the tests' receiver). Raises EndpointRefused; EndpointLookupSlow when
    the name did not resolve within `lookup_timeout` seconds (None: as long as the resolver takes)."""
    if not endpoint_allowed(endpoint):
        raise EndpointRefused("not a push service")
    parts = _parts(endpoint)
    assert parts is not None
    scheme, host, port = parts
    try:
        addresses = _resolve(host, port or 443, lookup_timeout)
    except (OSError, UnicodeError) as error:
        raise EndpointUnresolved(f"cannot resolve: {error}") from error
    if not addresses:
        raise EndpointRefused("no address")
    if _test_loopback(scheme, host):
        if not all(ipaddress.ip_address(address.split("%", 1)[0]).is_loopback for address in addresses):
            raise EndpointRefused("not loopback")
        return addresses[0]
    if not all(_public(address) for address in addresses):
        raise EndpointRefused("an address that is not public")
    return addresses[0]
