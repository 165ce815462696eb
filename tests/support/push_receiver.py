"""A real Web Push receiver on loopback: what a push service and a browser do together, for the tests.

`PushReceiver.subscribe()` makes a browser's subscription (an endpoint on this server, a P-256 key pair and
an auth secret), as `PushManager.subscribe()` does. Every POST to an endpoint is checked as a push service
and a browser would:

- the VAPID header (RFC 8292): `vapid t=<JWT>,k=<public key>`; the key must be the site's, the JWT's ES256
  signature must verify against it, its `aud` must be this server's origin, `exp` in the future (at most
  24 hours), `sub` a mailto: or https: contact;
- the body (RFC 8291, aes128gcm of RFC 8188): decrypted with the subscription's private key and auth secret.

What arrived is kept in `received` (endpoint, JSON payload, TTL). `answer(endpoint, status)` makes an endpoint
answer 404, 410, 429 or 500 instead of 201 (`status_all` for every endpoint); `redirect(endpoint, location)`
answers 307 to elsewhere. A request that fails a check gets 400 or 401 and is kept in `rejected` with the
reason.

As a real push service: `delay` seconds before each answer (the bench's 100 ms); `gate`, when cleared, holds
every request until it is set again, with `in_flight` counting the requests waiting there (a test sees the
sender's concurrency as a state, not as a time). `connections` counts the TCP connections accepted at all:
an endpoint the sender must refuse must not even be connected to.
"""

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64u_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def b64u_encode(value: bytes) -> str:
    return base64.urlsafe_b64encode(value).rstrip(b"=").decode()


def _public_bytes(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def vapid_key_pair() -> tuple[str, str]:
    """A VAPID pair as the settings hold it: (public key, private key), base64url."""
    private = ec.generate_private_key(ec.SECP256R1())
    return b64u_encode(_public_bytes(private.public_key())), b64u_encode(
        private.private_numbers().private_value.to_bytes(32, "big")
    )


class PushRejected(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def verify_vapid(header: str, *, public_key: str, audience: str, now: float | None = None) -> dict:
    """Check an Authorization header of RFC 8292 and return the JWT's claims; raise PushRejected otherwise."""
    now = now or time.time()
    scheme, _, params = header.partition(" ")
    if scheme.lower() != "vapid":
        raise PushRejected(401, f"scheme {scheme!r}")
    parts = dict(item.strip().split("=", 1) for item in params.split(",") if "=" in item)
    token, key = parts.get("t", ""), parts.get("k", "")
    if key != public_key:
        raise PushRejected(401, "not the site's VAPID key")
    try:
        header_b64, claims_b64, signature_b64 = token.split(".")
        jwt_header = json.loads(b64u_decode(header_b64))
        claims = json.loads(b64u_decode(claims_b64))
        signature = b64u_decode(signature_b64)
    except ValueError as exc:
        raise PushRejected(401, "JWT not readable") from exc
    if jwt_header.get("alg") != "ES256" or len(signature) != 64:
        raise PushRejected(401, "not ES256")
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64u_decode(key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        verifier.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise PushRejected(401, "bad signature") from exc
    if claims.get("aud") != audience:
        raise PushRejected(401, f"aud {claims.get('aud')!r}")
    exp = claims.get("exp")
    if not isinstance(exp, int) or not now < exp <= now + 24 * 3600 + 60:
        raise PushRejected(401, f"exp {exp!r}")
    sub = claims.get("sub", "")
    if not isinstance(sub, str) or not sub.startswith(("mailto:", "https:")):
        raise PushRejected(401, f"sub {sub!r}")
    return claims


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def decrypt_aes128gcm(body: bytes, *, private_key: ec.EllipticCurvePrivateKey, auth_secret: bytes) -> bytes:
    """RFC 8291 §3.4 and RFC 8188: one record, the sender's public key as the key id."""
    if len(body) < 21:
        raise PushRejected(400, "body too short")
    salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    sender_public = body[21 : 21 + id_length]
    ciphertext = body[21 + id_length :]
    if id_length != 65 or len(ciphertext) > record_size:
        raise PushRejected(400, "header")
    ua_public = _public_bytes(private_key.public_key())
    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_public)
    ecdh_secret = private_key.exchange(ec.ECDH(), sender)
    key_info = b"WebPush: info\x00" + ua_public + sender_public
    ikm = _hkdf(auth_secret, ecdh_secret, key_info, 32)
    prk_cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    prk_nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    try:
        padded = AESGCM(prk_cek).decrypt(prk_nonce, ciphertext, None)
    except InvalidTag as exc:
        raise PushRejected(400, "cannot decrypt") from exc
    stripped = padded.rstrip(b"\x00")
    if not stripped.endswith(b"\x02"):
        raise PushRejected(400, "padding delimiter of the last record missing")
    return stripped[:-1]


@dataclass
class Subscription:
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth_secret: bytes

    def as_json(self) -> dict:
        """What the browser's PushSubscription.toJSON() gives."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {
                "p256dh": b64u_encode(_public_bytes(self.private_key.public_key())),
                "auth": b64u_encode(self.auth_secret),
            },
        }


@dataclass
class Delivery:
    endpoint: str
    payload: dict
    ttl: str
    at: float


@dataclass
class PushReceiver:
    vapid_public_key: str
    host: str = "127.0.0.1"
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    received: list[Delivery] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    status_all: int | None = None
    retry_after: str | None = None
    redirects: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    gate: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    most_in_flight: int = 0
    connections: int = 0
    close_gate_after: int | None = None  # this many requests pass, then the gate closes
    _passed: int = 0
    _waiting: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    delivered_event: threading.Condition = field(default_factory=threading.Condition)

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}"

    def subscribe(self) -> Subscription:
        token = b64u_encode(os.urandom(12))
        subscription = Subscription(
            f"{self.origin}/push/{token}", ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
        )
        with self._lock:
            self.subscriptions[subscription.endpoint] = subscription
        return subscription

    def answer(self, endpoint: str, status: int) -> None:
        with self._lock:
            self.answers[endpoint] = status

    def redirect(self, endpoint: str, location: str) -> None:
        with self._lock:
            self.redirects[endpoint] = location

    def wait_in_flight(self, count: int, timeout: float = 60.0) -> bool:
        """Wait until `count` requests are held at the closed gate at once."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self.in_flight >= count:
                    return True
            time.sleep(0.01)
        return False

    def for_endpoint(self, endpoint: str) -> list[dict]:
        with self._lock:
            return [delivery.payload for delivery in self.received if delivery.endpoint == endpoint]

    def _handle(self, path: str, headers, body: bytes) -> tuple[int, dict[str, str]]:
        endpoint = f"{self.origin}{path}"
        with self._lock:
            subscription = self.subscriptions.get(endpoint)
            forced = self.answers.get(endpoint, self.status_all)
            location = self.redirects.get(endpoint)
        if location is not None:
            return 307, {"Location": location}
        if subscription is None:
            return 404, {}
        if forced is not None and forced >= 300:
            extra = {"Retry-After": self.retry_after} if forced == 429 and self.retry_after else {}
            return forced, extra
        verify_vapid(headers.get("Authorization", ""), public_key=self.vapid_public_key, audience=self.origin)
        if headers.get("Content-Encoding") != "aes128gcm":
            raise PushRejected(400, f"content-encoding {headers.get('Content-Encoding')!r}")
        if not headers.get("TTL", "").isdigit():
            raise PushRejected(400, "TTL missing")
        plain = decrypt_aes128gcm(body, private_key=subscription.private_key, auth_secret=subscription.auth_secret)
        delivery = Delivery(endpoint, json.loads(plain), headers["TTL"], time.monotonic())
        with self._lock:
            self.received.append(delivery)
        with self.delivered_event:
            self.delivered_event.notify_all()
        return 201, {"Location": f"{endpoint}/message/{len(self.received)}"}

    def wait_for(self, count: int, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.delivered_event:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.delivered_event.wait(left)
        return True

    def waiting_endpoints(self) -> set[str]:
        """The endpoints of the requests held at the gate now."""
        with self._lock:
            return {f"{self.origin}{path}" for path in self._waiting}

    def _wait_at_gate(self, path: str) -> None:
        with self._lock:
            if self.close_gate_after is not None and self._passed >= self.close_gate_after:
                self.gate.clear()
                self.close_gate_after = None
            self._passed += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._waiting.append(path)
        try:
            self.gate.wait()
            if self.delay:
                time.sleep(self.delay)
        finally:
            with self._lock:
                self.in_flight -= 1
                self._waiting.remove(path)

    def start(self) -> "PushReceiver":
        receiver = self
        self.gate.set()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as push services do

            def do_POST(self):  # noqa: N802 - the http.server hook name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver._wait_at_gate(self.path)
                try:
                    status, extra = receiver._handle(self.path, self.headers, body)
                except PushRejected as rejected:
                    with receiver._lock:
                        receiver.rejected.append((self.path, rejected.reason))
                    status, extra = rejected.status, {}
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format, *args):  # noqa: A002 - quiet in tests
                pass

        class Server(ThreadingHTTPServer):
            def get_request(self):
                accepted = super().get_request()
                with receiver._lock:
                    receiver.connections += 1
                return accepted

        self._server = Server((self.host, 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.gate.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
