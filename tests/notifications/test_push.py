"""Web Push end to end against the loopback receiver (tests/support/push_receiver.py): pywebpush signs and
encrypts for real, the receiver verifies the VAPID JWT and decrypts the aes128gcm payload. No mock."""

import dataclasses
import datetime
import zoneinfo

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.notifications import notices
from apps.notifications.models import Channel, Mail, Notice, NoticePreference, PushSubscription
from apps.notifications.notices import notice_send, quiet_until
from apps.notifications.push import endpoint_allowed
from apps.notifications.services import (
    PushError,
    mail_preference_set,
    notice_preferences_set,
    push_subscription_delete,
    push_subscription_save,
)
from tests.factories import UserFactory
from tests.mailbox import run_worker
from tests.support.push_receiver import PushRejected, decrypt_aes128gcm, verify_vapid

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
NIGHT = datetime.datetime(2099, 3, 10, 23, 30, tzinfo=AMSTERDAM)

pytestmark = pytest.mark.django_db
DELIVER = "apps.notifications.tasks.deliver_notices"


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    """The worker runs at the real time: quiet hours off, except where a test sets them around now."""
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def _subscribed(push_receiver, user=None, **kwargs):
    user = user or UserFactory()
    browser = push_receiver.subscribe()
    push_subscription_save(user=user, subscription=browser.as_json(), **kwargs)
    return user, browser


def _make_due():
    """The worker takes tasks whose time has come: bring every deferred one to now (the clock moved on)."""
    DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now() - datetime.timedelta(seconds=1))
    Notice.objects.filter(status__in=["queued", "retry"]).update(send_after=timezone.now())


def test_a_notice_reaches_the_device_signed_and_encrypted(push_receiver, smtp_server):
    user, browser = _subscribed(push_receiver, device_label="iPhone")

    notice = notice_send(user=user, kind="club_message", title="Zondag zwemmen", body="Om 10:00", url="/events")
    assert isinstance(notice, Notice)
    assert push_receiver.received == []  # nothing in the request: the worker sends
    run_worker()

    assert push_receiver.rejected == []
    [payload] = push_receiver.for_endpoint(browser.endpoint)
    assert payload == {"title": "Zondag zwemmen", "body": "Om 10:00", "url": "/events", "tag": "club_message"}
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT and notice.sent_at is not None
    assert smtp_server.messages == []


def test_every_device_of_the_member_gets_it(push_receiver):
    user, phone = _subscribed(push_receiver)
    _, laptop = _subscribed(push_receiver, user=user)
    notice_send(user=user, kind="event_changed", title="Nieuwe tijd", body="11:00")
    run_worker()
    assert len(push_receiver.for_endpoint(phone.endpoint)) == 1
    assert len(push_receiver.for_endpoint(laptop.endpoint)) == 1


@pytest.mark.parametrize("status", [404, 410])
def test_a_gone_endpoint_is_removed_and_the_notice_falls_back_to_mail(push_receiver, smtp_server, status):
    user, browser = _subscribed(push_receiver)
    push_receiver.answer(browser.endpoint, status)
    notice = notice_send(user=user, kind="club_message", title="Bericht", body="Tekst")
    run_worker()

    assert not PushSubscription.objects.filter(user=user).exists()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED
    message = smtp_server.only()
    assert message["Subject"] == "Bericht"
    assert "Tekst" in message.get_body(preferencelist=("plain",)).get_content()


@pytest.fixture
def push_only_reactions(monkeypatch):
    """Reactions as a kind without a mail fallback (every kind has one today; the rule must still hold)."""
    monkeypatch.setitem(notices.KINDS, "reaction", dataclasses.replace(notices.KINDS["reaction"], mail_fallback=False))


def test_a_gone_endpoint_without_mail_fallback_is_not_mailed(push_receiver, smtp_server, push_only_reactions):
    user, browser = _subscribed(push_receiver)
    push_receiver.answer(browser.endpoint, 410)
    notice = notice_send(user=user, kind="reaction", title="Brrr!", body="Anna")
    _make_due()
    run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.FAILED
    assert smtp_server.messages == []


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_busy_push_service_is_tried_again_later(push_receiver, smtp_server, status):
    user, browser = _subscribed(push_receiver)
    push_receiver.answer(browser.endpoint, status)
    push_receiver.retry_after = "120"
    notice = notice_send(user=user, kind="club_message", title="Later", body="Tekst")
    before = timezone.now()
    run_worker()

    notice.refresh_from_db()
    assert notice.status == Notice.Status.RETRY
    assert PushSubscription.objects.filter(user=user).exists()  # kept: it is only busy
    waiting = DBTaskResult.objects.get(status="READY", task_path=DELIVER)
    expected = datetime.timedelta(seconds=120) if status == 429 else datetime.timedelta(minutes=1)
    assert waiting.run_after >= before + expected
    assert smtp_server.messages == []

    push_receiver.answer(browser.endpoint, 201)
    _make_due()
    run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.SENT
    assert len(push_receiver.for_endpoint(browser.endpoint)) == 1


def test_a_push_service_that_stays_down_ends_in_the_mail(push_receiver, smtp_server):
    user, browser = _subscribed(push_receiver)
    push_receiver.answer(browser.endpoint, 500)
    notice = notice_send(user=user, kind="club_message", title="Nooit", body="Tekst")
    for _ in range(5):
        _make_due()
        run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED
    assert notice.attempts == 4
    assert smtp_server.only()["Subject"] == "Nooit"


def test_without_a_device_push_is_mail_for_kinds_with_a_fallback(push_receiver, smtp_server, push_only_reactions):
    user = UserFactory()
    mail = notice_send(user=user, kind="club_message", title="Per mail", body="Tekst")
    assert isinstance(mail, Mail)
    assert notice_send(user=user, kind="reaction", title="Brrr!", body="x") is None
    run_worker()
    assert smtp_server.only()["Subject"] == "Per mail"


def test_the_members_choice_push_mail_off(push_receiver, smtp_server):
    user, browser = _subscribed(push_receiver)
    notice_preferences_set(user=user, choices={"club_message": Channel.MAIL, "event_changed": Channel.OFF})
    assert isinstance(notice_send(user=user, kind="club_message", title="M", body="b"), Mail)
    assert notice_send(user=user, kind="event_changed", title="O", body="b") is None
    run_worker()
    assert push_receiver.received == []
    assert smtp_server.only()["Subject"] == "M"


def test_quiet_hours_hold_all_but_event_changes(push_receiver, settings):
    local = timezone.now().astimezone(AMSTERDAM)
    settings.QUIET_HOURS_START, settings.QUIET_HOURS_END = local.hour, (local.hour + 2) % 24
    user, browser = _subscribed(push_receiver)
    held = notice_send(user=user, kind="club_message", title="Morgen pas", body="b")
    urgent = notice_send(user=user, kind="event_cancelled", title="Gaat niet door", body="b")
    moved = notice_send(user=user, kind="event_changed", title="Gewijzigd", body="b")
    assert held.send_after.astimezone(AMSTERDAM).hour == (local.hour + 2) % 24
    assert held.send_after > timezone.now() + datetime.timedelta(minutes=59)
    assert urgent.send_after <= timezone.now() and moved.send_after <= timezone.now()
    run_worker()
    assert sorted(p["title"] for p in push_receiver.for_endpoint(browser.endpoint)) == ["Gaat niet door", "Gewijzigd"]
    assert DBTaskResult.objects.get(status="READY", task_path=DELIVER).run_after == held.send_after
    _make_due()
    run_worker()
    assert len(push_receiver.for_endpoint(browser.endpoint)) == 3


def test_quiet_hours_window(settings):
    settings.QUIET_HOURS_START, settings.QUIET_HOURS_END = 22, 7
    assert quiet_until(datetime.datetime(2099, 3, 10, 21, 59, tzinfo=AMSTERDAM)) is None
    assert quiet_until(datetime.datetime(2099, 3, 10, 22, 0, tzinfo=AMSTERDAM)) == datetime.datetime(
        2099, 3, 11, 7, 0, tzinfo=AMSTERDAM
    )
    assert quiet_until(datetime.datetime(2099, 3, 11, 6, 59, tzinfo=AMSTERDAM)) == datetime.datetime(
        2099, 3, 11, 7, 0, tzinfo=AMSTERDAM
    )
    assert quiet_until(datetime.datetime(2099, 3, 11, 7, 0, tzinfo=AMSTERDAM)) is None
    settings.QUIET_HOURS_START, settings.QUIET_HOURS_END = 22, 7
    assert quiet_until(NIGHT) == datetime.datetime(2099, 3, 11, 7, 0, tzinfo=AMSTERDAM)
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0
    assert quiet_until(NIGHT) is None


def test_a_busy_morning_of_reactions_is_one_notice(push_receiver):
    user, browser = _subscribed(push_receiver)
    first = notice_send(user=user, kind="reaction", title="Brrr! van Anna", body="op je plons")
    for name in ["Bram", "Cas", "Dirk"]:
        joined = notice_send(user=user, kind="reaction", title=f"Brrr! van {name}", body="op je plons")
        assert joined.pk == first.pk
    first.refresh_from_db()
    assert first.count == 4 and first.body == "op je plons (en 3 meer)"
    assert first.send_after > timezone.now() + datetime.timedelta(minutes=4)
    _make_due()
    run_worker()
    assert [p["title"] for p in push_receiver.for_endpoint(browser.endpoint)] == ["Brrr! van Dirk"]


def test_dedupe_key_sends_once(push_receiver):
    user, browser = _subscribed(push_receiver)
    kwargs = dict(user=user, kind="event_reminder", title="Morgen", body="b", dedupe_key="k:1")
    assert notice_send(**kwargs) is not None
    assert notice_send(**kwargs) is None
    run_worker()
    assert len(push_receiver.received) == 1


def test_subscription_is_validated(push_receiver, settings):
    user = UserFactory()
    browser = push_receiver.subscribe().as_json()
    for bad in [
        None,
        "x",
        {"endpoint": browser["endpoint"]},
        {**browser, "keys": {"p256dh": "AAAA", "auth": browser["keys"]["auth"]}},
        {**browser, "keys": {"p256dh": browser["keys"]["p256dh"], "auth": "kort"}},
    ]:
        with pytest.raises(PushError):
            push_subscription_save(user=user, subscription=bad)
    with pytest.raises(PushError, match="https"):
        push_subscription_save(user=user, subscription={**browser, "endpoint": "http://push.example.com/x"})
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
    with pytest.raises(PushError, match="https"):
        push_subscription_save(user=user, subscription=browser)
    assert not PushSubscription.objects.exists()


def test_endpoint_rule(settings):
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
    assert endpoint_allowed("https://fcm.googleapis.com/fcm/send/abc")
    assert not endpoint_allowed("http://127.0.0.1:8000/push/x")
    assert not endpoint_allowed("ftp://example.com/x")
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = True
    assert endpoint_allowed("http://127.0.0.1:8000/push/x")
    assert endpoint_allowed("http://[::1]:8000/push/x")
    assert not endpoint_allowed("http://10.0.0.1/push/x")
    assert not endpoint_allowed("http://push.example.com/x")


def test_the_same_browser_again_refreshes_and_can_move_to_another_member(push_receiver):
    user, browser = _subscribed(push_receiver, device_label="Pixel")
    first = PushSubscription.objects.get()
    push_subscription_save(user=user, subscription=browser.as_json())
    again = PushSubscription.objects.get()
    assert again.pk == first.pk and again.last_seen_at >= first.last_seen_at and again.device_label == "Pixel"
    other = UserFactory()
    push_subscription_save(user=other, subscription=browser.as_json())
    assert PushSubscription.objects.get().user == other


def test_a_member_removes_only_their_own_device(push_receiver):
    user, browser = _subscribed(push_receiver)
    subscription = PushSubscription.objects.get()
    with pytest.raises(PushError):
        push_subscription_delete(user=UserFactory(), subscription_id=subscription.pk)
    push_subscription_delete(user=user, subscription_id=subscription.pk)
    assert not PushSubscription.objects.exists()


def test_without_vapid_keys_no_one_subscribes(push_receiver, settings):
    settings.VAPID_PRIVATE_KEY = ""
    with pytest.raises(PushError):
        push_subscription_save(user=UserFactory(), subscription=push_receiver.subscribe().as_json())


def test_an_unsubscribe_link_turns_the_kinds_off_again(push_receiver):
    user, _ = _subscribed(push_receiver)
    notice_preferences_set(user=user, choices={"event_reminder": Channel.PUSH})
    mail_preference_set(user=user, event_mails=False)
    assert not NoticePreference.objects.filter(user=user, kind="event_reminder").exists()
    assert notices.channel_for(user, "event_reminder") == Channel.OFF
    assert notices.channel_for(user, "waitlist_place") == Channel.OFF


def test_receiver_refuses_a_wrong_key_and_bad_ciphertext(push_receiver):
    browser = push_receiver.subscribe()
    with pytest.raises(PushRejected):
        verify_vapid("vapid t=a.b.c,k=xyz", public_key=push_receiver.vapid_public_key, audience=push_receiver.origin)
    with pytest.raises(PushRejected):
        decrypt_aes128gcm(b"\x00" * 120, private_key=browser.private_key, auth_secret=browser.auth_secret)


def test_the_receiver_rejects_a_push_signed_with_another_key(push_receiver, settings):
    from tests.support.push_receiver import vapid_key_pair

    user, browser = _subscribed(push_receiver)
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = vapid_key_pair()
    notice_send(user=user, kind="event_changed", title="x", body="y")
    run_worker()
    assert push_receiver.received == []
    assert push_receiver.rejected and push_receiver.rejected[0][1] == "not the site's VAPID key"
