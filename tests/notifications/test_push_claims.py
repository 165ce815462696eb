"""Claim, send, record (issue 36 §2): a batch of notices is claimed in one short transaction, pushed with no
row lock held, several at once, and each outcome is written as it comes. A worker killed mid fan-out loses
nothing and sends nothing twice but what was in flight; the notices of a task that failed or died are picked up
again. PostgreSQL, real threads, a real worker process, the loopback receiver (its gate holds requests, so
each test waits for a state, never for a time)."""

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.events.notices import EVENT_CHANGED
from apps.notifications.models import Notice
from apps.notifications.notices import notice_send
from apps.notifications.push import notices_deliver
from apps.notifications.services import club_message_send, notices_recover_stuck, push_subscription_save
from apps.reminders.scheduled import scheduled_mails_send
from tests.concurrency import requires_postgresql
from tests.factories import UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]
DELIVER = "apps.notifications.tasks.deliver_notices"


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def _members_with_a_device(push_receiver, count: int):
    browsers = {}
    for user in UserFactory.create_batch(count):
        browser = push_receiver.subscribe()
        push_subscription_save(user=user, subscription=browser.as_json())
        browsers[user.pk] = browser
    return browsers


def _notices(browsers) -> list[int]:
    users = UserFactory._meta.model.objects.filter(pk__in=browsers)
    return [notice_send(user=user, kind=EVENT_CHANGED, title="Nieuwe tijd", body="11:00").pk for user in users]


def _in_a_thread(fn):
    result: dict = {}

    def run():
        try:
            result["value"] = fn()
        except Exception as error:  # noqa: BLE001 - the test looks at it
            result["error"] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def test_no_row_lock_is_held_while_pushing_and_a_live_sender_is_left_alone(push_receiver):
    requires_postgresql()
    [notice_id] = _notices(_members_with_a_device(push_receiver, 1))
    push_receiver.gate.clear()
    thread, result = _in_a_thread(lambda: notices_deliver(notice_ids=[notice_id]))
    try:
        assert push_receiver.wait_in_flight(1, timeout=30)
        # The push is on its way: its row is claimed, not locked (NOWAIT would raise).
        with transaction.atomic():
            notice = Notice.objects.select_for_update(nowait=True).get(pk=notice_id)
        assert notice.status == Notice.Status.SENDING and notice.claimed_at is not None
        # Its sender is alive: recovery does not take it away, not even long after.
        later = timezone.now() + timezone.timedelta(seconds=60)
        assert notices_recover_stuck(now=later) == 0
    finally:
        push_receiver.gate.set()
        thread.join(60)
    assert result.get("value") == {"sent": 1}, result
    assert Notice.objects.get().status == Notice.Status.SENT


def test_pushes_go_out_several_at_once(push_receiver, settings):
    requires_postgresql()
    settings.WEBPUSH_CONCURRENCY = 4
    ids = _notices(_members_with_a_device(push_receiver, 8))
    push_receiver.gate.clear()
    thread, result = _in_a_thread(lambda: notices_deliver(notice_ids=ids))
    try:
        assert push_receiver.wait_in_flight(4, timeout=20), f"at most {push_receiver.most_in_flight} at once"
    finally:
        push_receiver.gate.set()
        thread.join(60)
    assert result.get("value") == {"sent": 8}, result
    assert push_receiver.most_in_flight == 4  # bounded by the setting
    assert Counter(delivery.endpoint for delivery in push_receiver.received).most_common(1)[0][1] == 1


def test_the_notices_of_a_failed_task_are_picked_up_again(push_receiver, monkeypatch):
    requires_postgresql()
    from apps.notifications.tasks import deliver_notices
    from tests.mailbox import run_worker

    browsers = _members_with_a_device(push_receiver, 3)
    ids = _notices(browsers)
    DBTaskResult.objects.all().delete()
    deliver_notices.enqueue(notice_ids=ids)  # one task for the three, as a club message sends

    def broken(user_ids):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr("apps.notifications.push.channels_for_users", broken)
    run_worker()
    assert DBTaskResult.objects.get(task_path=DELIVER).status == "FAILED"
    monkeypatch.undo()
    assert push_receiver.received == []

    assert scheduled_mails_send(now=timezone.now()).recovered == 3  # at once: the task is over
    assert scheduled_mails_send(now=timezone.now()).recovered == 0
    run_worker()
    assert sorted(len(push_receiver.for_endpoint(b.endpoint)) for b in browsers.values()) == [1, 1, 1]
    assert set(Notice.objects.values_list("status", flat=True)) == {Notice.Status.SENT}


def test_a_failing_run_is_not_tried_for_ever(push_receiver, monkeypatch):
    """The next run takes a failed run's notices on at once; a notice no run gets through is given up."""
    requires_postgresql()
    from tests.mailbox import run_worker

    _notices(_members_with_a_device(push_receiver, 2))
    monkeypatch.setattr("apps.notifications.push.channels_for_users", lambda user_ids: 1 / 0)
    run_worker()
    scheduled_mails_send(now=timezone.now())  # the last failed run's claim: no next run took it on
    assert set(Notice.objects.values_list("status", "attempts")) == {(Notice.Status.FAILED, 4)}
    assert push_receiver.received == []


def test_queued_notices_without_a_live_task_are_queued_again(push_receiver):
    requires_postgresql()
    from tests.mailbox import run_worker

    browsers = _members_with_a_device(push_receiver, 2)
    _notices(browsers)
    DBTaskResult.objects.all().delete()  # their task gone: failed and pruned, or never written
    assert scheduled_mails_send(now=timezone.now()).recovered == 0  # not yet: they may just wait in a queue
    later = timezone.now() + timezone.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS + 1)
    assert scheduled_mails_send(now=later).recovered == 2
    assert scheduled_mails_send(now=later).recovered == 0  # once per STUCK_AFTER
    run_worker()
    assert len(push_receiver.received) == 2


# --- a worker killed mid fan-out ------------------------------------------------------------------------------


def _worker(*args: str) -> subprocess.Popen:
    """The production worker (`manage.py db_worker`) in its own process, on the test database."""
    db = connection.settings_dict
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_CONN_MAX_AGE": "0",
        "VAPID_PUBLIC_KEY": settings.VAPID_PUBLIC_KEY,
        "VAPID_PRIVATE_KEY": settings.VAPID_PRIVATE_KEY,
        "WEBPUSH_ALLOW_INSECURE_LOOPBACK": "true",
        "WEBPUSH_CONCURRENCY": "4",
        "QUIET_HOURS_START": "0",
        "QUIET_HOURS_END": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "SITE_URL": "https://koudwater.example",
    }
    command = [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1", *args]
    return subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(check, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_worker_killed_mid_fan_out_loses_nothing_and_sends_nothing_twice(push_receiver):
    requires_postgresql()
    browsers = _members_with_a_device(push_receiver, 30)
    push_receiver.close_gate_after = 10  # ten go through; then the next ones wait at the gate
    club_message_send(author=None, title="Ijsduik", body="Zondag om 10:00.")
    worker = _worker()
    try:
        _wait_for(lambda: push_receiver.in_flight == 4 or worker.poll() is not None)
        assert worker.poll() is None, worker.stderr.read().decode()
        # Every outcome that came back is written before more go out: wait for the ten.
        _wait_for(lambda: Notice.objects.filter(status=Notice.Status.SENT).count() == 10)
        in_flight = push_receiver.waiting_endpoints()
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(30)
    assert len(in_flight) == 4
    # The service takes what was in flight (the worker never heard its answer): those four may come twice.
    push_receiver.gate.set()
    _wait_for(lambda: push_receiver.in_flight == 0)
    assert Notice.objects.filter(status=Notice.Status.SENDING).count() == 20

    # The cron run finds the claim of a dead worker at once (its database session is gone).
    assert scheduled_mails_send(now=timezone.now()).recovered == 20
    again = _worker("--batch")
    assert again.wait(120) == 0, again.stderr.read().decode()

    counts = Counter(delivery.endpoint for delivery in push_receiver.received)
    assert set(counts) == {browser.endpoint for browser in browsers.values()}  # everyone got it
    assert {endpoint for endpoint, n in counts.items() if n > 1} <= in_flight  # twice: only what was in flight
    assert set(Notice.objects.values_list("status", flat=True)) == {Notice.Status.SENT}

    # The dead worker's task, put back after STUCK_AFTER, finds nothing left to send.
    later = timezone.now() + timezone.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS + 1)
    assert scheduled_mails_send(now=later).recovered == 1
    received = len(push_receiver.received)
    last = _worker("--batch")
    assert last.wait(120) == 0, last.stderr.read().decode()
    assert len(push_receiver.received) == received
    assert not DBTaskResult.objects.filter(task_path=DELIVER).exclude(status="SUCCESSFUL").exists()


def test_a_claim_brings_its_own_check_up_so_no_cron_is_needed(push_receiver):
    """A run that claimed and died (here: claimed under a token no session holds) left a check-up in the
    queue, written with the claim: when it comes due, the next worker sends the notices."""
    requires_postgresql()
    from apps.notifications.push import _claim
    from tests.mailbox import run_worker

    browsers = _members_with_a_device(push_receiver, 2)
    ids = _notices(browsers)
    DBTaskResult.objects.all().delete()
    assert len(_claim(ids, 12345, timezone.now())) == 2  # and then the worker died
    check_up = DBTaskResult.objects.get(status="READY")
    assert check_up.task_path == "apps.notifications.tasks.notices_check_claims"
    assert check_up.run_after > timezone.now()
    run_worker()
    assert push_receiver.received == []  # not due yet
    DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now())  # the clock moved on
    run_worker()
    assert sorted(len(push_receiver.for_endpoint(b.endpoint)) for b in browsers.values()) == [1, 1]
    assert set(Notice.objects.values_list("status", flat=True)) == {Notice.Status.SENT}
    # The second claim's check-up finds nothing to do, and comes no more.
    DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now())
    run_worker()
    assert not DBTaskResult.objects.filter(status="READY").exists()
    assert len(push_receiver.received) == 2
