"""Push endpoints at an IPv6 address that wraps an IPv4 one (issue 47 §3): 6to4 and ISATAP tunnel through
theirs, IPv4-mapped and NAT64 reach theirs, so a wrapped 127.0.0.1 is 127.0.0.1; Teredo, IPv4-compatible and
local-use NAT64 are refused whole, a public address inside or not. And the lookup a subscribing browser waits
for is bounded: a resolver that does not answer gets a Dutch "try again later", never a hang or a 500."""

import json
import socket
import threading

import pytest

from apps.notifications.kinds import CLUB_MESSAGE
from apps.notifications.models import Notice, PushSubscription
from apps.notifications.notices import notice_send
from apps.notifications.push_transport import EndpointRefused, endpoint_allowed, vetted_address
from apps.notifications.refusals import NotificationRefusal
from apps.notifications.services import MESSAGE_PUSH_LOOKUP_SLOW, MESSAGE_PUSH_NOT_HTTPS
from tests.factories import PushSubscriptionFactory, UserFactory
from tests.mailbox import run_worker

from .resolver import resolving_to

pytestmark = pytest.mark.django_db

FCM = "https://fcm.googleapis.com/fcm/send/x"
URL = "/meldingen/abonnement"

WRAPPING_WHAT_IS_NOT_PUBLIC = {
    "2002:7f00:1::": "6to4 around 127.0.0.1",
    "2002:a00:1::1": "6to4 around 10.0.0.1",
    "2002:a9fe:a9fe::": "6to4 around 169.254.169.254",
    "2002:c0a8:101:1::1": "6to4 around 192.168.1.1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2": "Teredo, client 192.0.2.45",
    "2001:0:7f00:1::1": "Teredo, server 127.0.0.1",
    "2001:0:8efa:101:8000:63bf:7105:fefd": "Teredo, server 142.250.1.1 and client 142.250.1.2: refused whole",
    "64:ff9b::7f00:1": "NAT64 around 127.0.0.1",
    "64:ff9b::a9fe:a9fe": "NAT64 around 169.254.169.254",
    "64:ff9b:1::8efa:101": "local-use NAT64 around 142.250.1.1: refused whole",
    "::ffff:7f00:1": "IPv4-mapped 127.0.0.1",
    "::ffff:a00:1": "IPv4-mapped 10.0.0.1",
    "::ffff:a9fe:a9fe": "IPv4-mapped 169.254.169.254",
    "::7f00:1": "IPv4-compatible 127.0.0.1",
    "::8efa:101": "IPv4-compatible 142.250.1.1: refused whole",
    "2a00:1450:4001::5efe:7f00:1": "ISATAP around 127.0.0.1",
    "2a00:1450:4001::200:5efe:a00:1": "ISATAP around 10.0.0.1",
}
PUBLIC = {
    "2a00:1450:4001:80b::200a": "plain IPv6",
    "2002:8efa:101::": "6to4 around 142.250.1.1",
    "::ffff:8efa:101": "IPv4-mapped 142.250.1.1 (a dual-stack resolver's answer)",
    "64:ff9b::8efa:101": "NAT64 around 142.250.1.1 (a DNS64 network)",
}


@pytest.fixture
def production_rules(settings):
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False


@pytest.fixture
def receiver(push_receiver, settings):
    """The loopback receiver (the site's keys, a browser's real keys), with production's rules: its fixture
    allows http on loopback for its own endpoints, these tests use FCM's name."""
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
    return push_receiver


@pytest.mark.parametrize("address", WRAPPING_WHAT_IS_NOT_PUBLIC, ids=WRAPPING_WHAT_IS_NOT_PUBLIC.values())
def test_a_wrapped_address_that_is_not_public_is_refused(production_rules, monkeypatch, address):
    resolving_to(monkeypatch, address)
    with pytest.raises(EndpointRefused):
        vetted_address(FCM)


@pytest.mark.parametrize("address", WRAPPING_WHAT_IS_NOT_PUBLIC, ids=WRAPPING_WHAT_IS_NOT_PUBLIC.values())
def test_one_wrapped_address_among_public_ones_is_enough_to_refuse(production_rules, monkeypatch, address):
    resolving_to(monkeypatch, "142.250.1.1", "2a00:1450:4001:80b::200a", address)
    with pytest.raises(EndpointRefused):
        vetted_address(FCM)


@pytest.mark.parametrize("address", PUBLIC, ids=PUBLIC.values())
def test_a_public_address_wrapped_or_not_is_allowed(production_rules, monkeypatch, address):
    resolving_to(monkeypatch, address)
    assert vetted_address(FCM) == address


def test_a_wildcard_host_is_a_name_under_it_not_one_that_ends_the_same(production_rules, settings):
    settings.WEBPUSH_ALLOWED_HOSTS = ["*.googleapis.com"]
    assert endpoint_allowed("https://fcm.googleapis.com/fcm/send/x")
    assert not endpoint_allowed("https://evilgoogleapis.com/fcm/send/x")
    assert not endpoint_allowed("https://googleapis.com/fcm/send/x")


# --- subscribing, through the page's request --------------------------------------------------------------------


def _subscription(receiver) -> dict:
    """A browser's real subscription (its keys), at FCM's name."""
    return {**receiver.subscribe().as_json(), "endpoint": FCM}


def _post(client, subscription: dict):
    return client.post(URL, json.dumps({"subscription": subscription}), content_type="application/json")


def test_subscribing_at_6to4_around_loopback_is_refused_in_dutch(member_client, receiver, monkeypatch):
    subscription = _subscription(receiver)
    resolving_to(monkeypatch, "2002:7f00:1::")
    response = _post(member_client, subscription)
    assert response.status_code == 400 and response.json()["error"] == MESSAGE_PUSH_NOT_HTTPS
    assert not PushSubscription.objects.exists()


def test_subscribing_at_a_public_address_is_stored(member_client, receiver, monkeypatch):
    subscription = _subscription(receiver)
    resolving_to(monkeypatch, "142.250.1.1")
    response = _post(member_client, subscription)
    assert response.status_code == 200
    assert PushSubscription.objects.get().endpoint == FCM


def test_a_resolver_that_does_not_answer_gets_a_dutch_try_again_later(member_client, receiver, monkeypatch, settings):
    """The lookup runs inside the web request: it waits WEBPUSH_LOOKUP_TIMEOUT_SECONDS, then refuses. The
    resolver here blocks until the test lets it go (after the answer came)."""
    subscription = _subscription(receiver)
    settings.WEBPUSH_LOOKUP_TIMEOUT_SECONDS = 0.05
    asked, release = threading.Event(), threading.Event()

    def hanging_getaddrinfo(host, *args, **kwargs):
        asked.set()
        release.wait(timeout=30)  # a safety net only: without the bound the test then fails, not hangs
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("142.250.1.1", 443))]

    monkeypatch.setattr(socket, "getaddrinfo", hanging_getaddrinfo)
    try:
        response = _post(member_client, subscription)
    finally:
        release.set()
    assert asked.is_set()
    assert response.status_code == 503
    assert response.json()["error"] == MESSAGE_PUSH_LOOKUP_SLOW
    assert response.json()["code"] == NotificationRefusal.ENDPOINT_LOOKUP_SLOW
    assert not PushSubscription.objects.exists()


# --- at delivery: the worker checks again ------------------------------------------------------------------------


def test_the_worker_refuses_a_stored_endpoint_now_at_6to4_around_loopback(receiver, smtp_server, monkeypatch):
    """A row stored when its name was public (or written around the check): the worker's own check refuses it
    without a connection, and the notice goes by mail."""
    user = UserFactory()
    keys = receiver.subscribe().as_json()["keys"]
    PushSubscriptionFactory(user=user, endpoint=FCM, p256dh=keys["p256dh"], auth=keys["auth"])
    resolving_to(monkeypatch, "2002:7f00:1::")
    notice = notice_send(user=user, kind=CLUB_MESSAGE, title="Bericht", body="Tekst")
    run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED
    assert receiver.connections == 0
    assert smtp_server.only()["Subject"] == "Bericht"
