"""A DNS that answers what a test says (this machine has no DNS of its own)."""

import ipaddress
import socket


def resolving_to(monkeypatch, *addresses: str) -> None:
    """Every name resolves to these addresses, in this order; an address literal and localhost (the test's
    mail server) stay what they are."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if host != "localhost":
                return [
                    (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port or 443))
                    for a in addresses
                ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
