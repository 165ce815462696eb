"""The compose drill's people: the first admin and a member, through Caddy over HTTPS as a browser would.

Run by deploy/drill/run.sh with the repository's .venv (requests, Pillow). Every request goes to
https://KOUD_DOMAIN on 127.0.0.1 (the name resolves here only), verified against Caddy's local CA, with
Django's CSRF token and an Origin header on every write. What a step learns (passwords, the app's secret,
cookies, the dips the member was told were saved) is kept in WORK/people.json for the steps after it.

    club.py first-admin            sign in, add the authenticator app, sign in again with its code, /admin opens
    club.py invite                 the admin invites the member from /admin; the worker's mail arrives in the sink
    club.py sign-up                the member signs up from the mail's link, starts a challenge, dips with a photo
    club.py sees-photos [sign-in]  her session still holds (or she signs in again); her card shows her photos
    club.py dips-until FILE        she dips (no photo) every 2 s until FILE exists, each dip resent until answered
    club.py dips-kept              every dip she was told was saved is on her card, her photos load
    club.py admin-red TEXT         /admin shows TEXT in the Systeemstatus (waits up to 6 minutes)
    club.py status-mails           how many Systeemstatus mails the admin got
"""

import base64
import email
import email.policy
import hashlib
import hmac
import io
import json
import os
import re
import socket
import struct
import sys
import time
import uuid
from pathlib import Path

import requests
from PIL import Image

WORK = Path(os.environ["WORK"])  # run.sh sets it
DOMAIN = os.environ.get("DOMAIN", "koud.test")
BASE = f"https://{DOMAIN}"
CA = WORK / "caddy-root.crt"
MAILDIR = WORK / "mail"
STATE = WORK / "people.json"
ADMIN = os.environ.get("ADMIN", "you@example.nl")
MEMBER = "ijsvogel@example.nl"

_resolve = socket.getaddrinfo


def _koud_test_here(host, *args, **kwargs):
    # curl --resolve for requests: the club's name points at this machine without an /etc/hosts edit.
    return _resolve("127.0.0.1" if host == DOMAIN else host, *args, **kwargs)


socket.getaddrinfo = _koud_test_here


def load() -> dict:
    return json.loads(STATE.read_text()) if STATE.exists() else {}


def save(state: dict) -> None:
    STATE.write_text(json.dumps(state, indent=1))


def browser(cookies: dict | None = None) -> requests.Session:
    session = requests.Session()
    session.verify = str(CA)
    session.trust_env = False  # REQUESTS_CA_BUNDLE would win over verify
    session.headers["User-Agent"] = "koud-drill"
    for name, value in (cookies or {}).items():
        session.cookies.set(name, value, domain=DOMAIN)
    return session


def get(session: requests.Session, path: str, expect: int = 200) -> requests.Response:
    response = session.get(BASE + path, timeout=30)
    if response.status_code != expect:
        sys.exit(f"GET {path}: {response.status_code}, wanted {expect}\n{response.text[:800]}")
    return response


def post(session: requests.Session, path: str, data=None, files=None, json_body=None, **kwargs):
    headers = {"Origin": BASE, "Referer": BASE + path, "X-CSRFToken": session.cookies.get("csrftoken", "")}
    headers |= kwargs.pop("headers", {})
    data = dict(data or {})
    if json_body is None:
        data["csrfmiddlewaretoken"] = session.cookies.get("csrftoken", "")
    return session.post(BASE + path, data=data, files=files, json=json_body, headers=headers, timeout=60, **kwargs)


def totp(secret: str, at: float | None = None) -> str:
    """RFC 6238, as an authenticator app computes it: 6 digits, 30-second steps, SHA-1."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int((at or time.time()) // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def sign_in(login: str, password: str, secret: str = "") -> requests.Session:
    session = browser()
    get(session, "/auth")
    response = post(session, "/auth", {"form": "inloggen", "login": login, "password": password})
    if response.url.endswith("/auth/tweede-stap"):
        if not secret:
            sys.exit(f"{login}: a second step was asked and there is no app")
        code = totp(secret)
        response = post(session, "/auth/tweede-stap", {"code": code})
    if not response.ok or "/auth" in response.url:
        sys.exit(f"{login}: sign-in failed at {response.url} ({response.status_code})\n{response.text[:800]}")
    return session


def first_admin(password: str) -> None:
    session = sign_in(ADMIN, password)
    # The admin role asks for a second factor before /admin opens.
    response = get(session, "/admin")
    assert "/account" in response.url, f"/admin opened without a second factor: {response.url}"
    page = get(session, "/account/beveiliging/app/instellen")
    if "/auth/opnieuw" in page.url:
        post(session, page.url.removeprefix(BASE), {"password": password})
        page = get(session, "/account/beveiliging/app/instellen")
    secret = re.search(r'id="authenticator_secret" type="text" value="([A-Z2-7]+)"', page.text).group(1)
    code = totp(secret)
    response = post(session, "/account/beveiliging/app/instellen", {"code": code})
    assert response.ok and "herstelcodes" in response.url, f"the app was not added: {response.url}"
    print(f"authenticator app added ({response.url.removeprefix(BASE)} shows the recovery codes)")
    post(session, "/uitloggen")
    # A code is used once: the sign-in waits for the app's next one.
    while totp(secret) == code:
        time.sleep(1)
    session = sign_in(ADMIN, password, secret)
    response = get(session, "/admin")
    assert response.url == BASE + "/admin" and "Systeemstatus" in response.text, response.url
    print("signed in again with the app's code: /admin opens")
    state = load()
    state["admin"] = {"password": password, "secret": secret, "cookies": session.cookies.get_dict()}
    save(state)


def mails(to: str) -> list[email.message.EmailMessage]:
    found = []
    for path in sorted((MAILDIR / "new").glob("*")) + sorted((MAILDIR / "cur").glob("*")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if to in (message["To"] or ""):
            found.append(message)
    return found


def invite() -> None:
    state = load()
    admin = browser(state["admin"]["cookies"])
    get(admin, "/admin")
    start = time.monotonic()
    response = post(admin, "/admin/api/uitnodigingen/nieuw", json_body={"email": MEMBER})
    assert response.status_code == 201, f"{response.status_code} {response.text[:400]}"
    print(response.json()["message"])
    deadline = time.monotonic() + 120
    while not mails(MEMBER):
        if time.monotonic() > deadline:
            sys.exit("the invitation mail did not arrive in 120 s (is the worker sending?)")
        time.sleep(1)
    message = mails(MEMBER)[0]
    body = message.get_body(preferencelist=("plain",)).get_content()
    link = re.search(rf"{re.escape(BASE)}/auth\?invite=[\w-]+", body).group(0)
    print(f"the worker's mail arrived after {time.monotonic() - start:.0f} s: {message['Subject']!r}, {link}")
    state["member"] = {"link": link}
    save(state)


def photo_bytes() -> bytes:
    image = Image.new("RGB", (1200, 900))
    image.putdata([(x % 256, (x * y) % 256, 200) for y in range(900) for x in range(1200)])
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def dip(session: requests.Session, request_id: str, photo: bytes | None = None) -> requests.Response:
    files = {"photo": ("plons.jpg", photo, "image/jpeg")} if photo else None
    return post(session, "/challenge/plons", {"request_id": request_id}, files=files)


def sign_up() -> None:
    state = load()
    member = state["member"]
    session = browser()
    page = get(session, member["link"].removeprefix(BASE))
    code = re.search(r'name="code"[^>]*value="([^"]+)"', page.text).group(1)
    password = "ijs-" + uuid.uuid4().hex[:12]
    response = post(
        session,
        "/auth?tab=registreren",
        {"form": "registreren", "code": code, "full_name": "Ilse IJsvogel", "email": MEMBER, "password": password},
    )
    assert response.ok and "Account aangemaakt" in response.text, response.text[:800]
    print(f"signed up with invitation {code}")
    session = sign_in(MEMBER, password)
    dashboard = get(session, "/dashboard").text
    # "Start Nu": the Waterdieren card, a hundred dips, which the drill's dips never finish.
    challenge_id = re.search(r'name="challenge_id" value="(\d+)">\s*<button[^>]*>Start Nu', dashboard).group(1)
    response = post(session, "/challenge/start", {"challenge_id": challenge_id})
    assert response.ok and response.url.endswith("/challenge"), response.url
    response = dip(session, str(uuid.uuid4()), photo_bytes())
    assert response.status_code == 201, f"{response.status_code} {response.text[:400]}"
    payload = response.json()
    photo_url = payload["dip"]["photoUrl"]
    assert photo_url, payload
    image = get(session, photo_url.removeprefix(BASE))
    print(f"dip {payload['dip']['id']} with a photo: {photo_url} answers {image.headers['Content-Type']}")
    member |= {"password": password, "cookies": session.cookies.get_dict(), "dips": [payload["dip"]["id"]]}
    member["photos"] = [photo_url.removeprefix(BASE)]
    save(state)


def her_session() -> requests.Session:
    member = load()["member"]
    session = browser(member["cookies"])
    response = get(session, "/challenge")
    assert response.url == BASE + "/challenge", f"her session is gone: {response.url}"
    return session


def sees_photos(how: str = "her-session") -> None:
    if how == "sign-in":  # after a restore: an archive holds no sessions, every member signs in again
        member = load()["member"]
        session = sign_in(MEMBER, member["password"])
    else:
        session = her_session()
    card = get(session, "/challenge").text
    for path in load()["member"]["photos"]:
        assert f'"{path}' in card, f"/challenge does not show {path}"
        response = get(session, path)
        assert response.headers["Content-Type"].startswith("image/"), response.headers
        print(f"{path}: {response.headers['Content-Type']}, {len(response.content)} bytes")
    print(f"{'signed in again' if how == 'sign-in' else 'her session holds'}: she sees her photos")


def dips_until(stop_file: str) -> None:
    session = her_session()
    told_saved, answers, longest_wait = [], {}, 0.0
    while not os.path.exists(stop_file):
        request_id, tapped = str(uuid.uuid4()), time.monotonic()
        while True:  # the phone resends a tap until the server answers it (same request_id: no double dip)
            try:
                response = dip(session, request_id)
                answer = "We zijn zo terug" if "We zijn zo terug" in response.text else response.status_code
            except requests.RequestException as error:
                response, answer = None, type(error).__name__
            answers[answer] = answers.get(answer, 0) + 1
            if response is not None and response.status_code in (200, 201):
                told_saved.append(response.json()["dip"]["id"])
                longest_wait = max(longest_wait, time.monotonic() - tapped)
                break
            if response is not None and (response.status_code in (401, 403) or "/auth" in response.url):
                sys.exit(f"her session was lost during the upgrade: {response.status_code} {response.url}")
            time.sleep(1)
        time.sleep(2)
    state = load()
    state["member"]["dips"] += told_saved
    save(state)
    print(f"{len(told_saved)} dips saved during the upgrade, answers {answers}, the longest tap {longest_wait:.0f} s")


def dips_kept() -> None:
    her_session()
    expected = set(load()["member"]["dips"])
    count = os.environ["DIPS_IN_DB"]  # what the database holds, counted by run.sh
    assert int(count) == len(expected), f"{count} dips in the database, she was told {len(expected)} were saved"
    print(f"all {len(expected)} dips she was told were saved are there")
    sees_photos()


def admin_red(text: str) -> None:
    admin = browser(load()["admin"]["cookies"])
    start = time.monotonic()
    while True:
        page = get(admin, "/admin").text
        if text in page:
            line = re.search(rf"[^<>]*{re.escape(text)}[^<>]*", page).group(0).strip()
            print(f"/admin shows {line!r} after {time.monotonic() - start:.0f} s")
            return
        if time.monotonic() - start > 360:
            sys.exit(f"/admin did not show {text!r} in 6 minutes")
        time.sleep(5)


def status_mails() -> None:
    found = [m for m in mails(ADMIN) if "Systeemstatus" in (m["Subject"] or "") or "rood" in (m["Subject"] or "")]
    for message in found:
        print(f"{message['Date']}: {message['Subject']}")
    print(len(found))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {
        "first-admin": first_admin,
        "invite": invite,
        "sign-up": sign_up,
        "sees-photos": sees_photos,
        "dips-until": dips_until,
        "dips-kept": dips_kept,
        "admin-red": admin_red,
        "status-mails": status_mails,
    }[command](*args)
