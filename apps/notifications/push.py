"""Web Push delivery (RFC 8030 / 8291 / 8292) through pywebpush and py-vapid. Runs in the worker only.

Each notice goes to every device of its member: the payload (JSON: title, body, url) is encrypted for the
device (aes128gcm) and the request is signed with the site's VAPID key. What the push service answers:

- 201 (or any 2xx): delivered.
- 404 or 410: the subscription is gone (the browser dropped it): its row is deleted.
- 429 or 5xx, or no answer: tried again later (RETRY_DELAYS), with the Retry-After the service gave.
- anything else (3xx, 400, 403, 413), an endpoint push_transport refuses, or anything a library raises for
  this device: this device will not take it.

A notice no device took, with no retry left, falls back to mail when its kind has a mail fallback.

Claim, send, record, recover: the outbox's one path (outbox.py), shared with mail. A task's notices are
claimed together, pushed with no row lock held by a bounded pool of threads (WEBPUSH_CONCURRENCY, one
kept-alive session each; only the HTTP happens in the threads), and each notice's outcome is recorded as it
comes (those that came back together share one commit). A claim queues its own check-up for
CLAIM_CHECK_AFTER later (tasks.notices_check_claims), and every delivery run starts with recovery, so a
killed worker's notices go again without waiting for the cron run. Only a push that was in flight when the
worker died can go twice.
"""

import datetime
import json
import logging
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import requests
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from .claims import RETRY_DELAYS, claim_token, claims_watch
from .models import Notice, PushSubscription
from .notices import channels_for_users, kind_of, notice_mail_queue
from .outbox import NOTICES
from .push_session import PushSession
from .push_transport import (
    EndpointRefused,
    EndpointUnresolved,
    PushNotConfigured,
    endpoint_allowed,
    push_configured,
)
from .queueing import notices_enqueue
from .services.delivery import notices_recover_stuck
from .services.push_subscriptions import push_subscriptions_expire

logger = logging.getLogger(__name__)

__all__ = ["RETRY_DELAYS", "claims_watch", "endpoint_allowed", "notices_deliver", "push_configured"]

GONE = {404, 410}


_vapid_cache: dict[str, Vapid] = {}
_vapid_lock = threading.Lock()


def _vapid() -> Vapid:
    key = settings.VAPID_PRIVATE_KEY
    if not key:
        raise PushNotConfigured("VAPID_PRIVATE_KEY is not set")
    with _vapid_lock:
        if key not in _vapid_cache:
            _vapid_cache.clear()
            _vapid_cache[key] = Vapid.from_string(private_key=key)
        return _vapid_cache[key]


def payload_for(notice: Notice) -> str:
    return json.dumps({"title": notice.title, "body": notice.body, "url": notice.url, "tag": notice.kind})


@dataclass
class PushOutcome:
    delivered: int = 0
    retry: int = 0
    refused: int = 0
    gone: list[int] = field(default_factory=list)
    retry_after: datetime.timedelta = field(default_factory=datetime.timedelta)


def _retry_after_seconds(error: WebPushException) -> int:
    try:
        return max(0, int(error.retry_after or 0))
    except (TypeError, ValueError):
        return 0  # an HTTP date: our own delay then


def push_one(subscription: PushSubscription, data: str, session: requests.Session) -> tuple[str, int]:
    """Send one payload to one device. Returns ('delivered'|'gone'|'retry'|'refused', retry-after seconds)."""
    if not endpoint_allowed(subscription.endpoint):
        return "refused", 0  # its form alone rules it out; the address is checked again on connecting
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=data,
            vapid_private_key=_vapid(),
            # A fresh dict each time: pywebpush writes the audience (the endpoint's origin) into it.
            vapid_claims={"sub": settings.VAPID_CONTACT},
            ttl=settings.WEBPUSH_TTL_SECONDS,
            timeout=settings.WEBPUSH_TIMEOUT_SECONDS,
            requests_session=session,
        )
    except EndpointUnresolved as error:
        logger.warning("push to %s: %s, later again", subscription.pk, error)
        return "retry", 0
    except EndpointRefused as error:
        logger.warning("push to %s refused before sending: %s", subscription.pk, error)
        return "refused", 0
    except WebPushException as error:
        status = error.status_code
        if error.response is None or status is None:
            logger.warning("push to %s not sent: %s", subscription.pk, error)  # the keys: this device's fault
            return "refused", 0
        if status in GONE:
            return "gone", 0
        if status == 429 or status >= 500:
            logger.warning("push to %s: %s, later again", subscription.pk, status)
            return "retry", _retry_after_seconds(error)
        logger.warning("push to %s refused: %s", subscription.pk, status)
        return "refused", 0
    except (requests.ConnectionError, requests.Timeout) as error:
        logger.warning("push to %s: no answer (%s), later again", subscription.pk, error)
        return "retry", 0
    except PushNotConfigured:
        raise
    except Exception as error:  # noqa: BLE001 - a bad key or URL a phone sent fails its own device, not the batch
        logger.warning("push to %s failed: %s: %s", subscription.pk, type(error).__name__, error)
        return "refused", 0
    return "delivered", 0


def _push_notice(devices: list[PushSubscription], data: str, sessions: "_Sessions") -> PushOutcome:
    """In a pool thread: the notice to each of its member's devices, over this thread's session."""
    session = sessions.get()
    outcome = PushOutcome()
    for device in devices:
        result, wait = push_one(device, data, session)
        if result == "delivered":
            outcome.delivered += 1
        elif result == "gone":
            outcome.gone.append(device.pk)
        elif result == "retry":
            outcome.retry += 1
            outcome.retry_after = max(outcome.retry_after, datetime.timedelta(seconds=wait))
        else:
            outcome.refused += 1
    return outcome


# --- claim ---------------------------------------------------------------------------------------------------


def _claim(notice_ids: list[int], token: int, now: datetime.datetime) -> list[Notice]:
    """The due notices among these that no one else has, claimed as ours (outbox.py), with their check-up."""
    return NOTICES.claim(notice_ids, token, now)


# --- record ----------------------------------------------------------------------------------------------------


def _record(notice: Notice, token: int, outcome: PushOutcome | None, reason: str = "") -> str:
    """Write one notice's outcome, only while the claim is still ours. In the caller's short transaction."""
    now = timezone.now()
    values: dict = {}
    mail = False
    if outcome is None:  # not pushed: Uit, or by mail
        status = Notice.Status.FAILED if reason == "uitgezet" else Notice.Status.MAILED
        values["last_error"] = reason
        mail = status == Notice.Status.MAILED
    elif outcome.delivered:
        status = Notice.Status.SENT
        values["last_error"] = ""
    elif outcome.retry and notice.attempts <= len(RETRY_DELAYS):
        status = Notice.Status.RETRY
        values.update(
            send_after=now + max(RETRY_DELAYS[notice.attempts - 1], outcome.retry_after),
            last_error="push-dienst tijdelijk niet bereikbaar",
        )
    else:
        status = Notice.Status.MAILED if kind_of(notice.kind).mail_fallback else Notice.Status.FAILED
        values["last_error"] = "geen apparaat bereikt"
        mail = status == Notice.Status.MAILED
    if not NOTICES.record(notice, token, status, **values):
        return "skipped"  # taken back by recovery meanwhile: that run records it
    if mail and notice_mail_queue(notice=notice) is None:
        status = Notice.Status.FAILED
        Notice.objects.filter(pk=notice.pk).update(status=status)
    if status == Notice.Status.RETRY:
        notices_enqueue([notice.pk], per_task=1, run_after=values["send_after"])
    if outcome is not None and outcome.gone:
        push_subscriptions_expire(subscription_ids=outcome.gone)
    return status


# --- send ------------------------------------------------------------------------------------------------------


class _Sessions:
    """One kept-alive push session per pool thread, all closed when the run ends."""

    def __init__(self):
        self._local = threading.local()
        self._all: list[PushSession] = []
        self._lock = threading.Lock()

    def get(self) -> PushSession:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = PushSession()
            with self._lock:
                self._all.append(session)
        return session

    def close(self) -> None:
        for session in self._all:
            session.close()


def notices_deliver(*, notice_ids: list[int]) -> dict[str, int]:
    """Deliver the given notices: claim, push several at once, record each as it comes. Runs in the worker."""
    notices_recover_stuck()  # the claims a dead worker left: this worker takes them on now
    counts: dict[str, int] = {}

    def count(status: str) -> None:
        counts[status] = counts.get(status, 0) + 1

    with claim_token() as token:
        claimed = _claim(notice_ids, token, timezone.now())
        for _ in range(len(notice_ids) - len(claimed)):
            count("skipped")  # sent already, withdrawn, not yet due, or another run's
        if not claimed:
            return counts
        user_ids = sorted({notice.user_id for notice in claimed})
        channels = channels_for_users(user_ids)
        devices: dict[int, list[PushSubscription]] = {user_id: [] for user_id in user_ids}
        for subscription in PushSubscription.objects.filter(user_id__in=user_ids).order_by("pk"):
            devices[subscription.user_id].append(subscription)
        sessions = _Sessions()
        try:
            with ThreadPoolExecutor(max_workers=max(1, settings.WEBPUSH_CONCURRENCY)) as pool:
                running = {}
                with transaction.atomic():
                    for notice in claimed:
                        channel = channels[notice.user_id].get(notice.kind)
                        if channel == "off" or not notice.user.is_active:
                            count(_record(notice, token, None, "uitgezet"))
                        elif channel == "mail" or not devices[notice.user_id] or not push_configured():
                            count(_record(notice, token, None))
                        else:
                            data = payload_for(notice)
                            job = pool.submit(_push_notice, devices[notice.user_id], data, sessions)
                            running[job] = notice
                pending = set(running)
                while pending:
                    # What came back meanwhile is written at once, in one short transaction (one commit for
                    # all, so writing keeps up with the pool: an answer not yet written may go twice after a
                    # kill).
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    with transaction.atomic():
                        for job in done:
                            count(_record(running[job], token, job.result()))
        finally:
            sessions.close()
    return counts
