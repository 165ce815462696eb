"""What a phone sends to /meldingen/abonnement is checked (issue 36 §2): a bad body is a Dutch 400, never a
500; keys must be a real P-256 point and a 16-byte secret. And whatever a push library raises for one
device stays that device's failure: the rest of the batch is delivered and the task does not fail."""

import base64
import json

import pytest
from django_tasks_db.models import DBTaskResult

from apps.notifications.kinds import CLUB_MESSAGE
from apps.notifications.models import Notice, PushSubscription
from apps.notifications.notices import notice_send
from apps.notifications.services import PushError, push_subscription_save
from tests.factories import PushSubscriptionFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db
URL = "/meldingen/abonnement"


def _b64u(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


NOT_A_POINT = _b64u(b"\x04" + b"\x01" * 64)  # the right length and prefix, but not on the curve


def _bad_bodies(browser: dict) -> list:
    keys = browser["keys"]
    return [
        "[" * 5000 + "]" * 5000,
        '{"subscription": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}",
        json.dumps({"subscription": {**browser, "endpoint": browser["endpoint"] + "\x00"}}),
        json.dumps({"subscription": browser, "device": "iPhone\x00"}),
        json.dumps({"subscription": {**browser, "endpoint": 12}}),
        json.dumps({"subscription": {**browser, "endpoint": [browser["endpoint"]]}}),
        json.dumps({"subscription": {**browser, "keys": [keys["p256dh"], keys["auth"]]}}),
        json.dumps({"subscription": {**browser, "keys": {"p256dh": 1, "auth": keys["auth"]}}}),
        json.dumps({"subscription": browser, "device": {"naam": "iPhone"}}),
        json.dumps({"subscription": browser, "device": "x" * 5000}),
        json.dumps({"subscription": {**browser, "endpoint": browser["endpoint"] + "/" + "a" * 100_000}}),
        json.dumps({"subscription": browser, "extra": "x" * 300_000}),
        json.dumps({"subscription": {**browser, "keys": {"p256dh": NOT_A_POINT, "auth": keys["auth"]}}}),
        json.dumps({"subscription": {**browser, "keys": {"p256dh": keys["p256dh"], "auth": _b64u(b"k" * 15)}}}),
        json.dumps({"subscription": {**browser, "keys": {"p256dh": keys["p256dh"][:-2], "auth": keys["auth"]}}}),
        b"\xff\xfe{}",
        "null",
        '"tekst"',
        "1e999999",
    ]


def test_every_bad_body_is_a_dutch_400(member_client, push_receiver):
    browser = push_receiver.subscribe().as_json()
    for index, body in enumerate(_bad_bodies(browser)):
        response = member_client.post(URL, body, content_type="application/json")
        assert response.status_code == 400, (index, response.status_code)
        assert response["Content-Type"] == "application/json"
        assert response.json()["error"].startswith("Dit apparaat"), index
    assert not PushSubscription.objects.exists()
    good = member_client.post(URL, json.dumps({"subscription": browser, "device": "iPhone"}), "application/json")
    assert good.status_code == 200


def test_a_key_that_is_not_a_curve_point_is_refused(push_receiver):
    browser = push_receiver.subscribe().as_json()
    with pytest.raises(PushError):
        push_subscription_save(
            user=UserFactory(), subscription={**browser, "keys": {**browser["keys"], "p256dh": NOT_A_POINT}}
        )


# --- one device's failure is that device's --------------------------------------------------------------------


def test_a_poisoned_device_does_not_take_the_batch_down(push_receiver, smtp_server):
    """Rows written around the subscribe checks (stored before them): a key that is no point, an IPv6 loopback
    the receiver does not listen on, user info in the endpoint. Each is its member's failure, by mail."""
    port = int(push_receiver.origin.rsplit(":", 1)[1])
    good = []
    for _ in range(5):
        user = UserFactory()
        browser = push_receiver.subscribe()
        push_subscription_save(user=user, subscription=browser.as_json())
        good.append((user, browser))
    poisoned = [
        PushSubscriptionFactory(endpoint=push_receiver.subscribe().endpoint, p256dh=NOT_A_POINT),
        PushSubscriptionFactory(endpoint=push_receiver.subscribe().endpoint, p256dh="kort"),
        PushSubscriptionFactory(endpoint=push_receiver.subscribe().endpoint, auth="!!"),
        PushSubscriptionFactory(endpoint=f"https://[::1]:{port}/push/x"),
        PushSubscriptionFactory(endpoint=f"https://user:pw@127.0.0.1:{port}/push/x"),
    ]
    members = [user for user, _ in good[:2]] + [device.user for device in poisoned] + [user for user, _ in good[2:]]
    ids = [notice_send(user=user, kind=CLUB_MESSAGE, title="Voor iedereen", body="Tekst").pk for user in members]
    DBTaskResult.objects.all().delete()  # one task for all of them, as a club message sends
    from apps.notifications.tasks import deliver_notices

    deliver_notices.enqueue(notice_ids=ids)
    run_worker()

    delivery = DBTaskResult.objects.exclude(task_path="apps.notifications.tasks.notices_check_claims")
    assert set(delivery.values_list("status", flat=True)) == {"SUCCESSFUL"}  # and the 5 mails
    for _, browser in good:
        assert len(push_receiver.for_endpoint(browser.endpoint)) == 1
    statuses = dict(Notice.objects.values_list("user_id", "status"))
    assert [statuses[user.pk] for user, _ in good] == [Notice.Status.SENT] * 5
    assert [statuses[device.user_id] for device in poisoned] == [Notice.Status.MAILED] * 5
    assert len(smtp_server.messages) == 5
