"""Sign in through the real /auth form of the running server and print the Cookie header value.

    python bench/signin.py --port 8765 --email lid0001@load.koudwater.test --password ijskoud-load
    python bench/signin.py --port 8765 --email admin@load.koudwater.test --password ijskoud-load \
        --totp-secret KOUDWATERLOADADMINBENCHTOTP23456   # an admin: the second step with the app's code

Only 127.0.0.1. The server runs production settings behind "a proxy": requests carry
X-Forwarded-Proto: https (gunicorn trusts it from 127.0.0.1), so the SSL redirect does not apply and
CSRF's origin check sees https://127.0.0.1:<port>. The session cookie is Secure; we read Set-Cookie
ourselves and hand it to wrk, which never looks at cookie flags.
"""

import argparse
import base64
import hashlib
import hmac
import http.client
import re
import struct
import sys
import time
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlparse

HOST = "127.0.0.1"


def _cookies(response, jar: dict) -> None:
    for header in response.msg.get_all("Set-Cookie") or []:
        parsed = SimpleCookie()
        parsed.load(header)
        for name, morsel in parsed.items():
            jar[name] = morsel.value


def _cookie_header(jar: dict) -> str:
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def totp_code(secret: str, *, at: float | None = None) -> str:
    """The six digits an authenticator app shows now (RFC 6238: HMAC-SHA1 over 30-second steps)."""
    counter = int(time.time() if at is None else at) // 30
    digest = hmac.new(base64.b32decode(secret, casefold=True), struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def _post_form(conn, path: str, fields: dict, *, base: dict, origin: str, jar: dict):
    """GET the form at `path` for its CSRF token, POST `fields` to it; returns the answer to the POST."""
    conn.request("GET", path, headers={**base, "Cookie": _cookie_header(jar)})
    response = conn.getresponse()
    page = response.read().decode()
    if response.status != 200:
        raise SystemExit(f"GET {path} answered {response.status}")
    _cookies(response, jar)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if not match or "csrftoken" not in jar:
        raise SystemExit(f"no CSRF token on {path}")
    headers = {
        **base,
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": _cookie_header(jar),
        "Origin": origin,
        "Referer": f"{origin}{path}",
    }
    conn.request("POST", path, body=urlencode({"csrfmiddlewaretoken": match.group(1), **fields}), headers=headers)
    response = conn.getresponse()
    response.read()
    _cookies(response, jar)
    return response


def sign_in(port: int, email: str, password: str, *, totp_secret: str | None = None) -> str:
    origin = f"https://{HOST}:{port}"
    base = {"Host": f"{HOST}:{port}", "X-Forwarded-Proto": "https"}
    jar: dict[str, str] = {}

    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    response = _post_form(
        conn, "/auth", {"form": "inloggen", "login": email, "password": password}, base=base, origin=origin, jar=jar
    )
    location = response.getheader("Location", "")
    if totp_secret and response.status == 302 and "tweede-stap" in location:
        second_step = urlparse(location)
        path = second_step.path + (f"?{second_step.query}" if second_step.query else "")
        response = _post_form(conn, path, {"code": totp_code(totp_secret)}, base=base, origin=origin, jar=jar)
        location = response.getheader("Location", "")
    if response.status != 302 or "sessionid" not in jar or location.rstrip("/").endswith(("/auth", "tweede-stap")):
        raise SystemExit(f"sign-in as {email} failed: {response.status} {location}")
    conn.close()
    return _cookie_header({name: jar[name] for name in ("sessionid", "csrftoken")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--totp-secret", help="the authenticator app's secret, for an account with a second factor")
    args = parser.parse_args()
    sys.stdout.write(sign_in(args.port, args.email, args.password, totp_secret=args.totp_secret) + "\n")


if __name__ == "__main__":
    main()
