"""`manage.py vapid_keys` makes a pair that pywebpush signs with and the receiver verifies."""

import io

import pytest
from django.core.management import call_command

from apps.notifications.notices import notice_send
from apps.notifications.services import push_subscription_save
from tests.factories import UserFactory
from tests.mailbox import run_worker


def _pair(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def test_it_prints_env_lines():
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    keys = _pair(out.getvalue())
    assert set(keys) == {"VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"}
    assert len(keys["VAPID_PUBLIC_KEY"]) == 87 and len(keys["VAPID_PRIVATE_KEY"]) == 43


def test_write_keeps_an_existing_file(tmp_path):
    path = tmp_path / ".vapid.env"
    call_command("vapid_keys", write=str(path), stderr=io.StringIO())
    first = path.read_text()
    call_command("vapid_keys", write=str(path), stderr=io.StringIO())
    assert path.read_text() == first and "VAPID_PRIVATE_KEY=" in first


@pytest.mark.django_db
def test_a_push_signed_with_the_new_keys_verifies(push_receiver, settings):
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    keys = _pair(out.getvalue())
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = keys["VAPID_PUBLIC_KEY"], keys["VAPID_PRIVATE_KEY"]
    push_receiver.vapid_public_key = keys["VAPID_PUBLIC_KEY"]
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0
    user = UserFactory()
    browser = push_receiver.subscribe()
    push_subscription_save(user=user, subscription=browser.as_json())
    notice_send(user=user, kind="event_changed", title="Nieuwe tijd", body="11:00")
    run_worker()
    assert push_receiver.rejected == []
    assert push_receiver.for_endpoint(browser.endpoint)[0]["title"] == "Nieuwe tijd"
