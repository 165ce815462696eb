"""Sign in through the real /auth form of the running server and print the Cookie header value.

    python bench/signin.py --port 8765 --email lid0001@load.koudwater.test --password ijskoud-load

Only 127.0.0.1. The server runs production settings behind "a proxy": requests carry
X-Forwarded-Proto: https (gunicorn trusts it from 127.0.0.1), so the SSL redirect does not apply and
CSRF's origin check sees https://127.0.0.1:<port>. The session cookie is Secure; we read Set-Cookie
ourselves and hand it to wrk, which never looks at cookie flags.
"""

import argparse
import http.client
import re
import sys
from http.cookies import SimpleCookie
from urllib.parse import urlencode

HOST = "127.0.0.1"


def _cookies(response, jar: dict) -> None:
    for header in response.msg.get_all("Set-Cookie") or []:
        parsed = SimpleCookie()
        parsed.load(header)
        for name, morsel in parsed.items():
            jar[name] = morsel.value


def _cookie_header(jar: dict) -> str:
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def sign_in(port: int, email: str, password: str) -> str:
    origin = f"https://{HOST}:{port}"
    base = {"Host": f"{HOST}:{port}", "X-Forwarded-Proto": "https"}
    jar: dict[str, str] = {}

    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", "/auth", headers=base)
    response = conn.getresponse()
    page = response.read().decode()
    if response.status != 200:
        raise SystemExit(f"GET /auth answered {response.status}")
    _cookies(response, jar)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if not match or "csrftoken" not in jar:
        raise SystemExit("no CSRF token on /auth")

    body = urlencode({"csrfmiddlewaretoken": match.group(1), "form": "inloggen", "login": email, "password": password})
    headers = {
        **base,
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": _cookie_header(jar),
        "Origin": origin,
        "Referer": f"{origin}/auth",
    }
    conn.request("POST", "/auth", body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    _cookies(response, jar)
    location = response.getheader("Location", "")
    if response.status != 302 or "sessionid" not in jar or location.rstrip("/").endswith("/auth"):
        raise SystemExit(f"sign-in as {email} failed: {response.status} {location}")
    conn.close()
    return _cookie_header({name: jar[name] for name in ("sessionid", "csrftoken")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    sys.stdout.write(sign_in(args.port, args.email, args.password) + "\n")


if __name__ == "__main__":
    main()
