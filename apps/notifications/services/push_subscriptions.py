"""Push subscriptions of a member's devices and the member's choice per kind of notice."""

import base64
import binascii
import unicodedata

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.errors import DomainError
from apps.core.page_cache import MEMBER, pages_changed

from ..models import Channel, MailPreference, NoticePreference, PushSubscription
from ..push_transport import EndpointLookupSlow, EndpointRefused, push_configured, vetted_address
from ..refusals import NotificationRefusal
from ..registry import KINDS

MESSAGE_PUSH_BAD_SUBSCRIPTION = "Dit apparaat gaf geen bruikbaar abonnement door. Probeer het opnieuw."
MESSAGE_PUSH_NOT_HTTPS = (
    "Dit apparaat gaf een adres door dat geen bekende push-dienst is (of geen https). Meldingen kunnen daar niet heen."
)
MESSAGE_PUSH_LOOKUP_SLOW = (
    "De push-dienst van dit apparaat was niet op tijd te vinden. Probeer het over een paar minuten opnieuw."
)
MESSAGE_PUSH_OFF = "Meldingen staan op deze site nog niet aan. Je krijgt alles per e-mail."
MESSAGE_NO_DEVICE = "Dit apparaat staat niet (meer) in je lijst."
MESSAGE_NOTICE_KIND = "Deze soort melding bestaat niet."
MESSAGE_NOTICE_CHANNEL = "Kies Push, Mail of Uit."


class PushError(DomainError):
    status = 400


def _b64url(value: object, length: int) -> bytes | None:
    """The bytes of a base64url value of exactly this length, or None."""
    if not isinstance(value, str) or not value or len(value) > 200 or not value.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_") + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == length else None


def _p256_point(value: object) -> bool:
    """A browser's p256dh: an uncompressed point on P-256 (65 bytes), as the encryption needs it."""
    raw = _b64url(value, 65)
    if raw is None or raw[0] != 4:
        return False
    # Imported here: only a subscribing browser needs it, and every process loads this module.
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def _label(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 200 or any(unicodedata.category(c) == "Cc" for c in value):
        raise PushError(MESSAGE_PUSH_BAD_SUBSCRIPTION, code=NotificationRefusal.BAD_SUBSCRIPTION)
    return " ".join(value.split())[:100]


def push_subscription_save(*, user, subscription: object, device_label: object = "") -> PushSubscription:
    """Store (or refresh) the browser's PushSubscription JSON for this member: {endpoint, keys: {p256dh, auth}}.

    The same endpoint again only moves its 'last seen' (the page sends it on every opening); an endpoint
    another member subscribed on this browser before moves to this member. Nothing in it is trusted: the
    endpoint must be a known push service at a public address (push_transport), the key a point on P-256,
    the secret 16 bytes. A member keeps at most WEBPUSH_MAX_DEVICES devices: the one seen longest ago goes."""
    if not push_configured():
        raise PushError(MESSAGE_PUSH_OFF, code=NotificationRefusal.PUSH_OFF, status=409)
    if not isinstance(subscription, dict):
        raise PushError(MESSAGE_PUSH_BAD_SUBSCRIPTION, code=NotificationRefusal.BAD_SUBSCRIPTION)
    endpoint = subscription.get("endpoint")
    keys = subscription.get("keys")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > 1000 or not isinstance(keys, dict):
        raise PushError(MESSAGE_PUSH_BAD_SUBSCRIPTION, code=NotificationRefusal.BAD_SUBSCRIPTION)
    if not endpoint.isprintable():  # a NUL or a line break: no URL a browser gives
        raise PushError(MESSAGE_PUSH_BAD_SUBSCRIPTION, code=NotificationRefusal.BAD_SUBSCRIPTION)
    try:
        vetted_address(endpoint, lookup_timeout=settings.WEBPUSH_LOOKUP_TIMEOUT_SECONDS)
    except EndpointLookupSlow as error:
        raise PushError(MESSAGE_PUSH_LOOKUP_SLOW, code=NotificationRefusal.ENDPOINT_LOOKUP_SLOW, status=503) from error
    except EndpointRefused as error:
        raise PushError(MESSAGE_PUSH_NOT_HTTPS, code=NotificationRefusal.ENDPOINT_REFUSED) from error
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not _p256_point(p256dh) or _b64url(auth, 16) is None:
        raise PushError(MESSAGE_PUSH_BAD_SUBSCRIPTION, code=NotificationRefusal.BAD_SUBSCRIPTION)
    assert isinstance(p256dh, str) and isinstance(auth, str)
    label = _label(device_label)
    now = timezone.now()
    with transaction.atomic():
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        owners = {user.pk}
        if existing is None:
            try:
                with transaction.atomic():
                    saved = PushSubscription.objects.create(
                        user=user,
                        endpoint=endpoint,
                        p256dh=p256dh,
                        auth=auth,
                        device_label=label,
                        created_at=now,
                        last_seen_at=now,
                    )
            except IntegrityError:
                # The same browser, twice at once: the other request stored it.
                saved = PushSubscription.objects.select_for_update().get(endpoint=endpoint)
        else:
            saved = existing
            owners.add(existing.user_id)
        saved.user = user
        saved.p256dh, saved.auth, saved.last_seen_at = p256dh, auth, now
        if label:
            saved.device_label = label
        saved.save()
        # A handful of devices: beyond the limit, the ones seen longest ago go (one notice, a few requests).
        others = PushSubscription.objects.filter(user=user).order_by("-last_seen_at", "-pk")
        PushSubscription.objects.filter(
            pk__in=list(others.values_list("pk", flat=True)[settings.WEBPUSH_MAX_DEVICES :])
        ).delete()
        pages_changed(MEMBER, user_ids=sorted(owners))  # the device list on /account
    return saved


def push_subscription_delete(*, user, subscription_id: int) -> None:
    """'Verwijderen' next to a device: only the member's own."""
    with transaction.atomic():
        deleted, _ = PushSubscription.objects.filter(user=user, pk=subscription_id).delete()
        if not deleted:
            raise PushError(MESSAGE_NO_DEVICE, code=NotificationRefusal.NO_DEVICE, status=404)
        pages_changed(MEMBER, user_ids=[user.pk])


def push_subscriptions_expire(*, subscription_ids: list[int]) -> int:
    """The push service said these endpoints are gone (404/410): the browser dropped them. In the worker."""
    with transaction.atomic():
        gone = PushSubscription.objects.filter(pk__in=subscription_ids)
        owners = sorted(set(gone.values_list("user_id", flat=True)))
        deleted, _ = gone.delete()
        pages_changed(MEMBER, user_ids=owners)  # the device list on /account
    return deleted


def notice_preferences_set(*, user, choices: dict[str, str]) -> None:
    """Push, Mail or Uit per kind (the /account form). The 14-day nudge also keeps its old mail choice in
    step: the cron command looks members up by it."""
    for kind, channel in choices.items():
        if kind not in KINDS or not KINDS[kind].chosen:
            raise PushError(MESSAGE_NOTICE_KIND, code=NotificationRefusal.NOTICE_KIND_UNKNOWN)
        if channel not in Channel.values:
            raise PushError(MESSAGE_NOTICE_CHANNEL, code=NotificationRefusal.NOTICE_CHANNEL_UNKNOWN)
    now = timezone.now()
    with transaction.atomic():
        MailPreference.objects.get_or_create(user=user)
        preference = MailPreference.objects.select_for_update().get(user=user)
        for kind, channel in choices.items():
            NoticePreference.objects.update_or_create(
                user=user, kind=kind, defaults={"channel": channel, "updated_at": now}
            )
            if KINDS[kind].mail_flag == "dip_nudge":
                preference.dip_nudge = channel != Channel.OFF
        preference.updated_at = now
        preference.save()
        pages_changed(MEMBER, user_ids=[user.pk])
