"""Notices about events, to members and guests: one home for what is said and to whom. Members hear through
`notice_send` (push or mail, as each chose on /account); guests, who have no account, by mail.

Sections: "Changes" (an event moved or called off; each list told at once through `notices_send`), "Waitlist
offers", "Guests", and "What this app tells": its kinds of message, declared for apps.notifications.registry.

Idempotent per change: a notice carries a key made of the event, the member and the change itself, so the same
change told twice (a double submit, a retry) tells once. Call inside the writing transaction.
"""

import datetime
import hashlib
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.core.formatting import clock_time, dutch_date
from apps.notifications.links import UnsubscribeScope, absolute_url
from apps.notifications.models import Mail
from apps.notifications.notices import notice_send, notices_send, notices_withdraw
from apps.notifications.registry import GUEST, MessageKind, message_kinds_register
from apps.notifications.services import guest_mail_queue, guest_mails_queue, member_mail_queue

from .links import PLANS_URL
from .models import Event, EventGuest, EventWaitlistEntry

EVENT_REMINDER = "event_reminder"
EVENT_CHANGED = "event_changed"
EVENT_CANCELLED = "event_cancelled"
WAITLIST_PLACE = "waitlist_place"
WAITLIST_OFFER_MAIL = "waitlist_offer"
GUEST_CONFIRMATION = "guest_confirmation"
GUEST_EVENT_CHANGED = "guest_event_changed"
GUEST_EVENT_CANCELLED = "guest_event_cancelled"
GUEST_LINK_MEMBER = "guest_link_member"

# ---------------------------------------------------------------------------------------------------------
# Changes
# ---------------------------------------------------------------------------------------------------------


def _audience(event: Event) -> list[User]:
    """Participants first, then the waitlist in order; two queries."""
    if event.event_date < timezone.now():
        return []
    participants = User.objects.filter(event_participations__event=event).order_by("event_participations__created_at")
    waiting = User.objects.filter(event_waitlist_entries__event=event).order_by("event_waitlist_entries__id")
    return list(participants) + list(waiting)


def _change_digest(*parts: object) -> str:
    return hashlib.sha256("|".join(str(part) for part in parts).encode()).hexdigest()[:16]


def when_and_where(event: Event) -> str:
    local = timezone.localtime(event.event_date)
    where = f" · {event.location}" if event.location else ""
    return f"{dutch_date(local.date())}, {clock_time(event.event_date)}{where}"


def _guests_told(event: Event, *, kind: str, change: str, digest: str) -> int:
    """Each confirmed guest of a coming `event` gets a mail about the change (rendered when it goes out, with
    their cancel link), once per change: the key names the event, the guest and the change. An address not
    confirmed (yet) is told nothing. One query for the guests."""
    if event.event_date < timezone.now():
        return 0
    guests = [
        (guest.pk, guest.email, f"guest-{change}:{event.pk}:{guest.pk}:{digest}")
        for guest in event.guests.filter(confirm_by__isnull=True).order_by("created_at", "pk")
    ]
    return len(guest_mails_queue(kind=kind, event_id=event.pk, guests=guests))


def event_changed_notify(*, event: Event, previous_date: datetime.datetime, previous_location: str) -> int:
    """The time or the place of `event` changed (from the previous values): tell everyone on its lists, the
    guests by mail. Returns how many were told (a member who chose Uit gets nothing)."""
    digest = _change_digest(previous_date.isoformat(), previous_location, event.event_date.isoformat(), event.location)
    told = _guests_told(event, kind=GUEST_EVENT_CHANGED, change="event-changed", digest=digest)
    told += len(
        notices_send(
            users=_audience(event),
            kind=EVENT_CHANGED,
            title=f"Gewijzigd: {event.title}",
            body=f"Nieuwe tijd en plaats: {when_and_where(event)}.",
            url=f"/events/{event.pk}",
            event_id=event.pk,
            dedupe_key=lambda user_id: f"event-changed:{event.pk}:{user_id}:{digest}",
        )
    )
    return told


def event_cancelled_notify(*, event: Event, deleted: bool = False) -> int:
    """`event` was called off (afgelast, taken off, or `deleted` in the Django admin): tell everyone on its
    lists, once, the guests by mail. The members' text carries everything, so it still reads right when the
    event itself is gone; a deleted event's guests go with it (and their mails with them), so they are not told."""
    reason = f" Reden: {event.cancel_reason}" if event.cancel_reason else ""
    digest = _change_digest(event.cancelled_at)
    told = 0
    if not deleted:
        told += _guests_told(event, kind=GUEST_EVENT_CANCELLED, change="event-cancelled", digest=digest)
    told += len(
        notices_send(
            users=_audience(event),
            kind=EVENT_CANCELLED,
            title=f"Afgelast: {event.title}",
            body=f"{event.title} ({when_and_where(event)}) gaat niet door.{reason}",
            url=PLANS_URL if deleted else f"/events/{event.pk}",
            event_id=None if deleted else event.pk,
            dedupe_key=lambda user_id: f"event-cancelled:{event.pk}:{user_id}:{digest}",
        )
    )
    return told


# ---------------------------------------------------------------------------------------------------------
# Waitlist offers
# ---------------------------------------------------------------------------------------------------------


def waitlist_offer_notify(*, entry: EventWaitlistEntry) -> object | None:
    """ "Er is een plek vrij bij {event}: bevestig vóór {tijd}" to the member the place is offered to: by push or
    by the offer's own mail (WAITLIST_OFFER_MAIL), as they chose."""
    event = entry.event
    assert entry.offer_expires_at is not None and entry.offered_at is not None  # called for a made offer
    until = timezone.localtime(entry.offer_expires_at)
    return notice_send(
        user=entry.user,
        kind=WAITLIST_PLACE,
        title=f"Er is een plek vrij bij {event.title}",
        body=f"Bevestig vóór {dutch_date(until.date())}, {clock_time(until)}: Ik kom of Ik kan niet.",
        url=f"{PLANS_URL}#event-{event.pk}",
        event_id=event.pk,
        dedupe_key=f"waitlist-offer:{entry.pk}:{entry.offered_at.timestamp():.0f}",
    )


def waitlist_offer_notice_withdraw(*, event_id: int, user_ids: list[int]) -> None:
    """An offer that ended (taken, declined, expired, the member left) before its notice went out: it is not
    sent. Call under the event's lock. A mail being sent right now cannot be stopped, but goes with the rest
    (no retry of a failed send brings the ended offer back); a mail or push already sent stays on record."""
    if not user_ids:
        return
    pending = Mail.objects.select_for_update().filter(
        kind=WAITLIST_OFFER_MAIL,
        event_id=event_id,
        user_id__in=user_ids,
        status__in=[Mail.Status.QUEUED, Mail.Status.SENDING, Mail.Status.FAILED],
    )
    Mail.objects.filter(pk__in=list(pending.values_list("pk", flat=True))).delete()
    for user in User.objects.filter(pk__in=user_ids):
        notices_withdraw(user=user, kind=WAITLIST_PLACE, event_id=event_id)


def _offer_mail_context(mail: Mail) -> dict[str, Any]:
    context = event_mail_context(mail)
    assert mail.event_id is not None and mail.user_id is not None  # an offer mail is a member's, about an event
    entry = (
        EventWaitlistEntry.objects.filter(event_id=mail.event_id, user_id=mail.user_id, offer_expires_at__isnull=False)
        .only("offer_expires_at")
        .first()
    )
    return context | {
        "offer_expires_at": entry.offer_expires_at if entry is not None else None,
        # The plan list asks to sign in first and then lands on the event's row with Ik kom / Ik kan niet.
        "offer_url": absolute_url(f"{PLANS_URL}#event-{mail.event_id}"),
    }


# ---------------------------------------------------------------------------------------------------------
# Guests
# ---------------------------------------------------------------------------------------------------------

GUEST_CANCEL_SALT = "koud.events.guest-cancel"
GUEST_CONFIRM_SALT = "koud.events.guest-confirm"


def guest_cancel_token(guest: EventGuest) -> str:
    """A signed token for the cancel link in the guest's mail: it names the guest and their address, so a
    guest row made again later with the same id never answers to an old link."""
    return signing.dumps({"g": guest.pk, "e": guest.email}, salt=GUEST_CANCEL_SALT, compress=True)


def _signed_payload(token: str, *, salt: str) -> dict | None:
    try:
        payload = signing.loads(token, salt=salt)
    except signing.BadSignature:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("g"), int):
        return None
    return payload


def guest_from_cancel_token(token: str) -> EventGuest | None:
    payload = _signed_payload(token, salt=GUEST_CANCEL_SALT)
    if payload is None:
        return None
    return EventGuest.objects.select_related("event").filter(pk=payload["g"], email=payload.get("e")).first()


def guest_confirm_token(guest: EventGuest) -> str:
    """A signed token for the confirmation link in the guest's first mail: the guest, their address and the
    event (so a link whose sign-up has gone can still point back to the event's guest page)."""
    return signing.dumps({"g": guest.pk, "e": guest.email, "v": guest.event_id}, salt=GUEST_CONFIRM_SALT, compress=True)


@dataclass(frozen=True)
class GuestConfirmLink:
    """What a confirmation link names: the guest (None when the sign-up has gone) and the event's id."""

    guest: EventGuest | None
    event_id: int


def guest_from_confirm_token(token: str) -> GuestConfirmLink | None:
    """None for a link this app did not make (the page is a 404)."""
    payload = _signed_payload(token, salt=GUEST_CONFIRM_SALT)
    if payload is None or not isinstance(payload.get("v"), int):
        return None
    guest = EventGuest.objects.select_related("event").filter(pk=payload["g"], email=payload.get("e")).first()
    return GuestConfirmLink(guest=guest, event_id=payload["v"])


def guest_confirmation_notify(*, guest: EventGuest) -> Mail | None:
    """The mail with the link that confirms the guest's address (and their place). It carries nothing the
    visitor typed, not even their name: whoever fills in someone else's address makes the club send only its
    own text."""
    return guest_mail_queue(kind=GUEST_CONFIRMATION, to_email=guest.email, event_id=guest.event_id, guest_id=guest.pk)


def guest_link_member_notify(*, user: User, event: Event) -> Mail | None:
    """Someone filled in a member's address on the event's guest page: the page answers as for any address,
    and the member hears it here, by mail, once per event (however often it is tried)."""
    return member_mail_queue(
        kind=GUEST_LINK_MEMBER, user=user, event_id=event.pk, dedupe_key=f"guest-link-member:{event.pk}:{user.pk}"
    )


def guest_notices_delete(*, guest_ids: list[int]) -> None:
    """A guest's mails go with the guest (their address is personal data)."""
    Mail.objects.filter(guest_id__in=guest_ids).delete()


def _guest_mail_context(mail: Mail) -> dict[str, Any]:
    """No name: a guest's mails greet neutrally (the name is what a visitor typed, about any address)."""
    context = event_mail_context(mail)
    guest = EventGuest.objects.filter(pk=mail.guest_id).first() if mail.guest_id is not None else None
    if guest is None:
        return context | {"cancel_url": absolute_url(PLANS_URL), "confirm_url": "", "confirm_by": None}
    unconfirmed = guest.confirm_by is not None
    return context | {
        "cancel_url": absolute_url(reverse("event_guest_cancel", args=[guest_cancel_token(guest)])),
        "confirm_url": (
            absolute_url(reverse("event_guest_confirm", args=[guest_confirm_token(guest)])) if unconfirmed else ""
        ),
        "confirm_by": guest.confirm_by,
    }


def _guest_link_member_context(mail: Mail) -> dict[str, Any]:
    context = event_mail_context(mail)
    return context | {"event_url": absolute_url(reverse("event", args=[mail.event_id]))}


# ---------------------------------------------------------------------------------------------------------
# What this app tells (apps.notifications.registry)
# ---------------------------------------------------------------------------------------------------------


def event_mail_context(mail: Mail) -> dict[str, Any]:
    """The event a mail is about, as it is when the mail goes out (a mail keeps only its id)."""
    event = Event.objects.filter(pk=mail.event_id).first() if mail.event_id is not None else None
    return {
        "event": event,
        "event_title": event.title if event is not None else "",
        "events_url": absolute_url(PLANS_URL),
    }


# The old "mail over mijn events" choice (and its unsubscribe link) governs every event kind. Guests have no
# account: their mails are about their own sign-up, with their cancel link, never an unsubscribe.
_EVENTS, _EVENT_MAILS = "Events", UnsubscribeScope.EVENT_MAILS

message_kinds_register(
    MessageKind(
        EVENT_REMINDER,
        subject="Morgen: {event_title}",
        templates="events/mail/event_reminder",
        context=event_mail_context,
        label="Herinnering de dag voor een event",
        position=20,
        group=_EVENTS,
        unsubscribe=_EVENT_MAILS,
    ),
    # Changes and offers cannot wait for the morning: quiet hours do not hold them.
    MessageKind(
        EVENT_CHANGED,
        subject="Gewijzigd: {event_title}",
        templates="events/mail/event_changed",
        context=event_mail_context,
        label="Een event verandert van tijd of plaats",
        position=21,
        quiet_hours=False,
        group=_EVENTS,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        EVENT_CANCELLED,
        label="Een event gaat niet door",
        position=22,
        quiet_hours=False,
        group=_EVENTS,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        WAITLIST_PLACE,
        mail_name=WAITLIST_OFFER_MAIL,
        subject="Er is een plek vrij bij {event_title}",
        templates="events/mail/waitlist_offer",
        context=_offer_mail_context,
        label="Er is een plek vrij voor je (wachtlijst)",
        position=23,
        quiet_hours=False,
        group=_EVENTS,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        GUEST_CONFIRMATION,
        display="Aanmelding als gast bevestigen",
        subject="Bevestig je aanmelding als gast: {event_title}",
        templates="events/mail/guest_confirmation",
        recipient=GUEST,
        context=_guest_mail_context,
    ),
    MessageKind(
        GUEST_EVENT_CHANGED,
        display="Event gewijzigd (gast)",
        subject="Gewijzigd: {event_title}",
        templates="events/mail/guest_event_changed",
        recipient=GUEST,
        context=_guest_mail_context,
    ),
    MessageKind(
        GUEST_EVENT_CANCELLED,
        display="Event afgelast (gast)",
        subject="Afgelast: {event_title}",
        templates="events/mail/guest_event_cancelled",
        recipient=GUEST,
        context=_guest_mail_context,
    ),
    # A member's address on the guest page: the member hears it (a mail only, no choice under Meldingen).
    MessageKind(
        GUEST_LINK_MEMBER,
        display="Gastaanmelding met je adres",
        subject="Aanmelden voor {event_title}",
        templates="events/mail/guest_link_member",
        context=_guest_link_member_context,
    ),
)
