"""Web Push delivery (RFC 8030 / 8291 / 8292) through pywebpush and py-vapid. Runs in the worker only.

Each notice goes to every device of its member: the payload (JSON: title, body, url) is encrypted for the
device (aes128gcm) and the request is signed with the site's VAPID key. What the push service answers:

- 201 (or any 2xx): delivered.
- 404 or 410: the subscription is gone (the browser dropped it): its row is deleted.
- 429 or 5xx, or no answer: tried again later (RETRY_DELAYS), with the Retry-After the service gave.
- anything else (400, 403, 413): this device will not take it.

A notice no device took, with no retry left, falls back to mail when its kind has a mail fallback.
"""

import datetime
import ipaddress
import json
import logging
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from .models import Notice, PushSubscription
from .notices import channels_for_users, kind_of, notice_mail_queue

logger = logging.getLogger(__name__)

# After the first try: the waits before each next one. The push service's Retry-After wins when it is longer.
RETRY_DELAYS = [datetime.timedelta(minutes=1), datetime.timedelta(minutes=5), datetime.timedelta(minutes=30)]
GONE = {404, 410}


class PushNotConfigured(RuntimeError):
    pass


def endpoint_allowed(endpoint: str) -> bool:
    """https, or http on loopback when WEBPUSH_ALLOW_INSECURE_LOOPBACK is on (the tests' receiver)."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return False
    if not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    if parts.scheme == "http" and settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK:
        try:
            return ipaddress.ip_address(parts.hostname).is_loopback
        except ValueError:
            return parts.hostname == "localhost"
    return False


def push_configured() -> bool:
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


_vapid_cache: dict[str, Vapid] = {}


def _vapid() -> Vapid:
    key = settings.VAPID_PRIVATE_KEY
    if not key:
        raise PushNotConfigured("VAPID_PRIVATE_KEY is not set")
    if key not in _vapid_cache:
        _vapid_cache.clear()
        _vapid_cache[key] = Vapid.from_string(private_key=key)
    return _vapid_cache[key]


def payload_for(notice: Notice) -> str:
    return json.dumps({"title": notice.title, "body": notice.body, "url": notice.url, "tag": notice.kind})


@dataclass
class PushOutcome:
    delivered: int = 0
    gone: int = 0
    retry: int = 0
    refused: int = 0
    retry_after: datetime.timedelta = field(default_factory=datetime.timedelta)


def _retry_after_seconds(error: WebPushException) -> int:
    try:
        return max(0, int(error.retry_after or 0))
    except (TypeError, ValueError):
        return 0  # an HTTP date: our own delay then


def push_one(subscription: PushSubscription, data: str, session: requests.Session) -> tuple[str, int]:
    """Send one payload to one device. Returns ('delivered'|'gone'|'retry'|'refused', retry-after seconds)."""
    if not endpoint_allowed(subscription.endpoint):
        return "refused", 0
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
    except WebPushException as error:
        status = error.status_code
        if status in GONE:
            return "gone", 0
        if status is None or status == 429 or status >= 500:
            logger.warning("push to %s: %s, later again", subscription.pk, status)
            return "retry", _retry_after_seconds(error)
        logger.warning("push to %s refused: %s", subscription.pk, status)
        return "refused", 0
    except (requests.RequestException, OSError) as error:
        logger.warning("push to %s: no answer (%s), later again", subscription.pk, error)
        return "retry", 0
    return "delivered", 0


# Notices locked and sent per transaction: their members' choices and devices are read in a few queries.
BATCH = 100


def _deliver_batch(notice_ids: list[int], session: requests.Session) -> list[str]:
    from .services import push_subscriptions_expire
    from .tasks import deliver_notices

    statuses: list[str] = []
    with transaction.atomic():
        # skip_locked: a notice another worker is sending right now is that worker's (a task run twice).
        notices = list(
            Notice.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("user")
            .filter(pk__in=notice_ids, status__in=[Notice.Status.QUEUED, Notice.Status.RETRY])
            .order_by("pk")
        )
        statuses += ["skipped"] * (len(notice_ids) - len(notices))
        user_ids = sorted({notice.user_id for notice in notices})
        channels = channels_for_users(user_ids)
        devices: dict[int, list[PushSubscription]] = {user_id: [] for user_id in user_ids}
        for subscription in PushSubscription.objects.filter(user_id__in=user_ids).order_by("pk"):
            devices[subscription.user_id].append(subscription)
        now = timezone.now()
        gone: list[int] = []
        changed: list[Notice] = []
        for notice in notices:
            if notice.send_after > now:
                statuses.append("early")  # merged into a batch after its task was queued: that one sends it
                continue
            kind = kind_of(notice.kind)
            channel = channels[notice.user_id][notice.kind]
            subscriptions = [device for device in devices[notice.user_id] if device.pk not in gone]
            notice.attempts += 1
            if channel == "off" or not notice.user.is_active:
                notice.status, notice.last_error = Notice.Status.FAILED, "uitgezet"
            elif channel == "mail" or not subscriptions or not push_configured():
                notice.status = Notice.Status.MAILED if notice_mail_queue(notice=notice) else Notice.Status.FAILED
            else:
                outcome = PushOutcome()
                data = payload_for(notice)
                for subscription in subscriptions:
                    result, wait = push_one(subscription, data, session)
                    if result == "delivered":
                        outcome.delivered += 1
                    elif result == "gone":
                        gone.append(subscription.pk)
                    elif result == "retry":
                        outcome.retry += 1
                        outcome.retry_after = max(outcome.retry_after, datetime.timedelta(seconds=wait))
                    else:
                        outcome.refused += 1
                if outcome.delivered:
                    notice.status, notice.sent_at, notice.last_error = Notice.Status.SENT, now, ""
                elif outcome.retry and notice.attempts <= len(RETRY_DELAYS):
                    delay = max(RETRY_DELAYS[notice.attempts - 1], outcome.retry_after)
                    notice.status, notice.send_after = Notice.Status.RETRY, now + delay
                    notice.last_error = "push-dienst tijdelijk niet bereikbaar"
                    deliver_notices.using(run_after=notice.send_after).enqueue(notice_ids=[notice.pk])
                elif kind.mail_fallback and notice_mail_queue(notice=notice) is not None:
                    notice.status, notice.last_error = Notice.Status.MAILED, "geen apparaat bereikt"
                else:
                    notice.status, notice.last_error = Notice.Status.FAILED, "geen apparaat bereikt"
            changed.append(notice)
            statuses.append(notice.status)
        if gone:
            push_subscriptions_expire(subscription_ids=gone)
        Notice.objects.bulk_update(changed, ["status", "attempts", "sent_at", "send_after", "last_error"])
    return statuses


def notices_deliver(*, notice_ids: list[int]) -> dict[str, int]:
    """Deliver the given notices, over one HTTP session (kept-alive connections to each push service)."""
    outcome: dict[str, int] = {}
    with requests.Session() as session:
        for start in range(0, len(notice_ids), BATCH):
            for status in _deliver_batch(notice_ids[start : start + BATCH], session):
                outcome[status] = outcome.get(status, 0) + 1
    return outcome
