"""Push endpoints a phone sent are not trusted (issue 36 §2): only the known push services, over https on
port 443 without user info, at a public address; redirects are never followed; a handful of devices a
member. Delivery checks again, and an endpoint it refuses is not even connected to (the loopback receiver
counts every TCP connection)."""

import ipaddress
import socket

import pytest

from apps.notifications.kinds import CLUB_MESSAGE
from apps.notifications.models import Notice, PushSubscription
from apps.notifications.notices import notice_send
from apps.notifications.push_transport import EndpointRefused, endpoint_allowed, vetted_address
from apps.notifications.services import MESSAGE_PUSH_NOT_HTTPS, PushError, push_subscription_save
from tests.factories import PushSubscriptionFactory, UserFactory
from tests.mailbox import run_worker

from .resolver import resolving_to

pytestmark = pytest.mark.django_db

KNOWN_SERVICES = [
    "https://fcm.googleapis.com/fcm/send/dKz4:APA91bH",
    "https://fcm.googleapis.com/wp/evZRV",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk",
    "https://web.push.apple.com/QGbVv4c2",
    "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD",
]
FORBIDDEN = [
    "http://fcm.googleapis.com/fcm/send/x",  # not https
    "https://fcm.googleapis.com:8443/fcm/send/x",  # not the standard port
    "https://user:pw@fcm.googleapis.com/fcm/send/x",  # user info
    "https://fcm.googleapis.com@127.0.0.1/x",
    "https://fcm.googleapis.com.evil.example/x",
    "https://evil-fcm.googleapis.com.example/x",
    "https://push.apple.com.evil.example/x",
    "https://evilpush.apple.com/x",  # not under *.push.apple.com: a name that only ends the same
    "https://evilnotify.windows.com/x",
    "https://push.apple.com/x",  # *.name is a name under it, not the name itself
    "https://127.0.0.1/push/x",
    "https://localhost/push/x",
    "https://2130706433/push/x",  # 127.0.0.1, decimal
    "https://127.1/push/x",  # 127.0.0.1, short
    "https://0x7f000001/push/x",
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.1/push/x",
    "https://[::1]/push/x",
    "https://[::ffff:127.0.0.1]/push/x",
    "https://intranet/push/x",
    "https://fcm.googleapis.com/fcm/send/x\x00y",
    "https://fcm.googleapis.com/fcm/send/x y",
    "ftp://fcm.googleapis.com/x",
    "https:///x",
    "",
]


@pytest.fixture
def production_rules(settings):
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False


@pytest.mark.parametrize("endpoint", KNOWN_SERVICES)
def test_the_known_push_services_are_allowed(production_rules, endpoint):
    assert endpoint_allowed(endpoint)


@pytest.mark.parametrize("endpoint", FORBIDDEN)
def test_anything_else_is_refused(production_rules, endpoint):
    assert not endpoint_allowed(endpoint)


def test_an_operator_adds_a_push_service(production_rules, settings):
    assert not endpoint_allowed("https://push.example.org/x")
    settings.WEBPUSH_ALLOWED_HOSTS = [*settings.WEBPUSH_ALLOWED_HOSTS, "push.example.org"]
    assert endpoint_allowed("https://push.example.org/x")


@pytest.mark.parametrize(
    "addresses",
    [["127.0.0.1"], ["10.1.2.3"], ["169.254.169.254"], ["192.168.1.1"], ["::1"], ["::ffff:127.0.0.1"], ["fe80::1"]]
    + [["142.250.1.1", "127.0.0.1"], ["224.0.0.1"], ["0.0.0.0"], ["100.64.0.1"]],  # noqa: S104 - refused
)
def test_a_known_name_at_an_address_that_is_not_public_is_refused(production_rules, monkeypatch, addresses):
    resolving_to(monkeypatch, *addresses)
    with pytest.raises(EndpointRefused):
        vetted_address("https://fcm.googleapis.com/fcm/send/x")


def test_a_known_name_at_a_public_address_gives_that_address(production_rules, monkeypatch):
    resolving_to(monkeypatch, "142.250.1.1", "142.250.1.2")
    assert vetted_address("https://fcm.googleapis.com/fcm/send/x") == "142.250.1.1"


def test_an_operators_internal_name_is_still_refused(production_rules, settings):
    settings.WEBPUSH_ALLOWED_HOSTS = [*settings.WEBPUSH_ALLOWED_HOSTS, "localhost"]
    with pytest.raises(EndpointRefused):
        vetted_address("https://localhost/push/x")  # resolved for real: loopback


def test_subscribing_an_internal_address_is_refused(production_rules, push_receiver):
    port = int(push_receiver.origin.rsplit(":", 1)[1])
    browser = push_receiver.subscribe().as_json()
    user = UserFactory()
    for endpoint in [f"https://127.0.0.1:{port}/push/x", "https://2130706433/", "https://127.1/", "https://[::1]/"]:
        with pytest.raises(PushError) as refused:
            push_subscription_save(user=user, subscription={**browser, "endpoint": endpoint})
        assert refused.value.message == MESSAGE_PUSH_NOT_HTTPS
    assert not PushSubscription.objects.exists()


def test_the_test_only_loopback_rule_allows_http_on_loopback_only(settings):
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = True
    assert endpoint_allowed("http://127.0.0.1:8000/push/x")
    assert endpoint_allowed("http://[::1]:8000/push/x")
    assert not endpoint_allowed("http://10.0.0.1/push/x")
    assert not endpoint_allowed("http://push.example.com/x")
    assert not endpoint_allowed("http://user:pw@127.0.0.1:8000/push/x")


def test_production_refuses_the_test_only_setting():
    from pathlib import Path

    production = (Path(__file__).resolve().parents[2] / "config/settings/production.py").read_text()
    assert "WEBPUSH_ALLOW_INSECURE_LOOPBACK" in production and "ImproperlyConfigured" in production


# --- at delivery -----------------------------------------------------------------------------------------------


def test_delivery_connects_to_no_internal_address_stored_before(production_rules, push_receiver, smtp_server):
    """Rows stored before these rules (or written around them): the worker refuses them without a connection,
    and the notice goes by mail."""
    port = int(push_receiver.origin.rsplit(":", 1)[1])
    user = UserFactory()
    for endpoint in [
        f"https://127.0.0.1:{port}/push/a",
        f"http://127.0.0.1:{port}/push/b",
        f"https://2130706433:{port}/push/c",
        f"https://127.1:{port}/push/d",
        f"https://localhost:{port}/push/e",
        f"https://user:pw@127.0.0.1:{port}/push/f",
    ]:
        PushSubscriptionFactory(user=user, endpoint=endpoint)
    notice = notice_send(user=user, kind=CLUB_MESSAGE, title="Bericht", body="Tekst")
    run_worker()

    assert push_receiver.connections == 0
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED
    assert smtp_server.only()["Subject"] == "Bericht"
    assert PushSubscription.objects.filter(user=user).count() == 6  # refused, not "gone": nothing to probe


def test_a_redirect_is_not_followed(push_receiver, smtp_server):
    user = UserFactory()
    browser = push_receiver.subscribe()
    push_subscription_save(user=user, subscription=browser.as_json())
    elsewhere = push_receiver.subscribe()  # an endpoint of the same server that answers when reached
    push_receiver.redirect(browser.endpoint, elsewhere.endpoint)
    notice = notice_send(user=user, kind=CLUB_MESSAGE, title="Bericht", body="Tekst")
    run_worker()

    assert push_receiver.received == [] and push_receiver.rejected == []  # the 307 was the only answer
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED  # a 3xx is a failure of that device
    assert PushSubscription.objects.filter(user=user).exists()


# --- a handful of devices -------------------------------------------------------------------------------------


def test_a_sixth_device_drops_the_oldest(push_receiver, settings):
    assert settings.WEBPUSH_MAX_DEVICES == 5
    user = UserFactory()
    browsers = [push_receiver.subscribe() for _ in range(6)]
    for browser in browsers:
        push_subscription_save(user=user, subscription=browser.as_json())
    kept = set(PushSubscription.objects.filter(user=user).values_list("endpoint", flat=True))
    assert kept == {browser.endpoint for browser in browsers[1:]}
    # Seen again, the second becomes the newest: a seventh drops the third.
    push_subscription_save(user=user, subscription=browsers[1].as_json())
    push_subscription_save(user=user, subscription=push_receiver.subscribe().as_json())
    kept = set(PushSubscription.objects.filter(user=user).values_list("endpoint", flat=True))
    assert browsers[1].endpoint in kept and browsers[2].endpoint not in kept and len(kept) == 5


# --- the connection goes to the checked address ---------------------------------------------------------------


def test_the_connection_goes_to_the_checked_address_with_the_name_kept_for_tls(tmp_path, monkeypatch):
    """No second DNS lookup after the check (a rebinding answer reaches nothing), and TLS still speaks to the
    name: SNI, the certificate's name check and the Host header. A TLS server on loopback plays FCM."""
    import datetime
    import http.server
    import ssl
    import threading

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from apps.notifications import push_session

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fcm.googleapis.com")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("fcm.googleapis.com")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    seen: dict = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server hook name
            seen["host"] = self.headers["Host"]
            self.rfile.read(int(self.headers["Content-Length"] or 0))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format, *args):  # noqa: A002 - quiet
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")

    def sni(sock, server_name, ctx):
        seen["sni"] = server_name  # and None: go on with the handshake

    context.sni_callback = sni
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        checked = []
        monkeypatch.setattr(push_session, "vetted_address", lambda url: checked.append(url) or "127.0.0.1")

        real_getaddrinfo = socket.getaddrinfo

        def no_second_lookup(host, *args, **kwargs):
            ipaddress.ip_address(host)  # an address is parsed, not looked up: a name here would be a lookup
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", no_second_lookup)
        with push_session.PushSession() as session:
            response = session.post(
                f"https://fcm.googleapis.com:{port}/fcm/send/x",
                data=b"x",
                verify=str(tmp_path / "cert.pem"),
                timeout=10,
            )
        assert response.status_code == 201
        assert checked == [f"https://fcm.googleapis.com:{port}/fcm/send/x"]
        assert seen == {"sni": "fcm.googleapis.com", "host": f"fcm.googleapis.com:{port}"}
    finally:
        server.shutdown()
        server.server_close()


def test_a_push_service_whose_name_does_not_resolve_now_is_tried_again_later(settings, push_receiver, smtp_server):
    """DNS down is not the device's fault: no connection now, a retry later (not the mail at once)."""
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
    user = UserFactory()
    keys = push_receiver.subscribe().as_json()["keys"]
    PushSubscriptionFactory(
        user=user, endpoint="https://fcm.googleapis.com/fcm/send/x", p256dh=keys["p256dh"], auth=keys["auth"]
    )

    def getaddrinfo(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        notice = notice_send(user=user, kind=CLUB_MESSAGE, title="Bericht", body="Tekst")
        run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.RETRY
    assert smtp_server.messages == []
