"""The push receiver fixture (tests/support/push_receiver.py): a real Web Push endpoint on loopback, with the
site's VAPID keys set to a fresh pair and http on loopback allowed (WEBPUSH_ALLOW_INSECURE_LOOPBACK)."""

import pytest

from tests.support.push_receiver import PushReceiver, vapid_key_pair


@pytest.fixture
def push_receiver(settings):
    public, private = vapid_key_pair()
    settings.VAPID_PUBLIC_KEY = public
    settings.VAPID_PRIVATE_KEY = private
    settings.VAPID_CONTACT = "mailto:beheer@koudwater.example"
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = True
    receiver = PushReceiver(vapid_public_key=public).start()
    try:
        yield receiver
    finally:
        receiver.stop()
