"""Absolute links in mails. A mail is rendered by the worker, outside any request: SITE_URL is the address."""

from django.conf import settings
from django.core import signing
from django.urls import reverse

UNSUBSCRIBE_SALT = "koud.notifications.unsubscribe"


class UnsubscribeScope:
    """What one unsubscribe link turns off."""

    EVENT_MAILS = "events"  # a member's waitlist and reminder mails
    DIP_NUDGE = "nudge"  # a member's 14-day nudge
    INVITATIONS = "invitations"  # invitation mails to an address that has no account
    CLUB_NOTICES = "club"  # a member's notices from the club feed (Brrr!)
    # One kind a member chooses for without an old mail choice (clubberichten): "kind:<name>", its choice turns Uit.
    KIND = "kind:"

    @staticmethod
    def of_kind(name: str) -> str:
        return f"{UnsubscribeScope.KIND}{name}"


def absolute_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_token(*, scope: str, user_id: int | None = None, email: str | None = None) -> str:
    """A signed, non-expiring token: the link must keep working in an old mail, and it can only turn mail off."""
    payload = {"s": scope, "u": user_id} if user_id is not None else {"s": scope, "e": email}
    return signing.dumps(payload, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_payload(token: str) -> dict | None:
    try:
        payload = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return payload if isinstance(payload, dict) else None


def unsubscribe_url(**kwargs) -> str:
    return absolute_url(reverse("mail_unsubscribe", args=[unsubscribe_token(**kwargs)]))
