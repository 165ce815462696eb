"""Guests: signing up without an account, confirming the address, cancelling, inviting them to become members,
clean-up.

A sign-up through the guest link holds a place for GUEST_CONFIRM_MINUTES; only the link in the mail makes it a
guest's place (like a waitlist offer, the hold runs out and the place is free again). The page answers a
member's address like any other and tells the member by mail instead."""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.services import MESSAGE_EMAIL_REQUIRED, MESSAGE_NAME_REQUIRED
from apps.core.page_cache import EVENTS, pages_changed
from apps.invitations.services import MESSAGE_EMAIL_INVALID, invitation_create

from ..models import (
    Event,
    EventGuest,
    guest_holds_place,
)
from ..notices import guest_confirmation_notify, guest_link_member_notify
from ..refusals import EventRefusal
from .common import (
    MESSAGE_PAST,
    EventAlreadyJoined,
    EventError,
    EventFull,
    _each_event_locked,
    _free_places,
    _lock_upcoming_event,
    _offers_refresh,
)

# Guests ------------------------------------------------------------------------------------------------------

GUEST_KEEP_DAYS = 30
NAME_MAX_LENGTH = 150
EMAIL_MAX_LENGTH = 254
# The safety text a guest agrees to before signing up (shown on the guest page): one home.
SAFETY_TEXT = (
    "Zwem nooit alleen, blijf kort in het water en luister naar je lichaam. Warm daarna rustig op met droge "
    "kleren en iets warms te drinken. Je doet mee op eigen risico."
)
# The answer to every accepted address, a member's too ({minutes}: GUEST_CONFIRM_MINUTES).
MESSAGE_GUEST_SIGNED_UP = (
    "Bijna klaar! Kijk in je mail: bevestig je aanmelding met de link die we je stuurden. "
    "We houden je plek {minutes} minuten vast."
)
MESSAGE_GUEST_DUPLICATE = (
    "Met dit e-mailadres ben je al aangemeld als gast voor dit event. De link om te bevestigen of af te melden "
    "staat in je mail."
)
MESSAGE_GUEST_CLOSED = "Dit event is niet (meer) open voor gasten."
MESSAGE_GUEST_FULL = "Dit event is vol. Er is helaas geen plek meer voor gasten."
MESSAGE_GUEST_LIMIT = "Het maximum aantal gasten voor dit event is bereikt. Er is helaas geen plek meer voor gasten."
MESSAGE_GUEST_CONFIRMED = "Je aanmelding is bevestigd: je doet mee als gast. Tot dan!"
MESSAGE_GUEST_ALREADY_CONFIRMED = "Je aanmelding was al bevestigd: je doet mee als gast."
MESSAGE_GUEST_CONFIRM_TOO_LATE = (
    "Je bevestiging kwam te laat: we hielden je plek even vast, maar intussen is er geen plek meer voor gasten. "
    "Je aanmelding is vervallen."
)
MESSAGE_GUEST_LINK_GONE = (
    "Deze aanmelding bestaat niet meer: de bevestiging kwam te laat of je hebt je afgemeld. "
    "Je kunt je opnieuw aanmelden."
)
MESSAGE_GUEST_CANCELLED = "Je bent afgemeld als gast. Jammer dat je er niet bij bent!"
MESSAGE_SAFETY_REQUIRED = "Lees de veiligheidsregels en vink aan dat je ermee akkoord gaat."
MESSAGE_NAME_TOO_LONG = f"Je naam mag hoogstens {NAME_MAX_LENGTH} tekens lang zijn."
MESSAGE_EMAIL_TOO_LONG = f"Je e-mailadres mag hoogstens {EMAIL_MAX_LENGTH} tekens lang zijn."
MESSAGE_GUESTS_NOT_YET = "Gasten uitnodigen kan pas na het event."
MESSAGE_GUESTS_ADMIN_ONLY = "Alleen een admin kan gasten uitnodigen."
MESSAGE_GUESTS_NONE_CHOSEN = "Kies eerst de gasten die je wilt uitnodigen."
MESSAGE_GUESTS_INVITED = "{count} gast(en) uitgenodigd om lid te worden: ieder krijgt een e-mail met de uitnodiging."
MESSAGE_GUESTS_SKIPPED = "{count} gast(en) overgeslagen: al uitgenodigd, al lid of er staat al een uitnodiging open."


def guest_event_for_token(token: str) -> Event | None:
    """The event behind a guest link, while it is open for guests; None otherwise (the page is a 404)."""
    return Event.objects.filter(guest_token=token, open_for_guests=True).first()


def _guest_input_errors(*, name: str, email: str, safety_agreed: bool) -> dict[str, list[str]]:
    """The sign-up's own rules and messages (apps.accounts): a name, a valid address, within the limits."""
    errors: dict[str, list[str]] = {}
    if not name:
        errors["name"] = [MESSAGE_NAME_REQUIRED]
    elif len(name) > NAME_MAX_LENGTH:
        errors["name"] = [MESSAGE_NAME_TOO_LONG]
    if not email:
        errors["email"] = [MESSAGE_EMAIL_REQUIRED]
    elif len(email) > EMAIL_MAX_LENGTH:
        errors["email"] = [MESSAGE_EMAIL_TOO_LONG]
    else:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [MESSAGE_EMAIL_INVALID]
    if not safety_agreed:
        errors["safety_agreed"] = [MESSAGE_SAFETY_REQUIRED]
    return errors


def guest_confirm_deadline(event: Event, *, now: datetime.datetime) -> datetime.datetime:
    """GUEST_CONFIRM_MINUTES from now, but never past the event's start."""
    return min(now + datetime.timedelta(minutes=settings.GUEST_CONFIRM_MINUTES), event.event_date)


def _guest_room_refusal(event: Event, *, now: datetime.datetime) -> EventError | None:
    """Under the event's lock: is there a place for one more guest? A waiting member's offer comes first (made
    here, and kept: the caller commits it before it raises the refusal), then the event's places, then its own
    cap on guests. Returns the refusal when there is none."""
    if event.waitlist.exists():
        _offers_refresh(event, now=now)
    free = _free_places(event, now=now)
    if free is not None and free <= 0:
        return EventFull(MESSAGE_GUEST_FULL)
    if event.guest_limit is not None and event.guests.filter(guest_holds_place(now)).count() >= event.guest_limit:
        return EventError(MESSAGE_GUEST_LIMIT, code=EventRefusal.GUEST_LIMIT_REACHED)
    return None


def guest_sign_up(*, token: str, name: str | None, email: str | None, safety_agreed: bool) -> EventGuest:
    """A sign-up through the event's public link: a place held for GUEST_CONFIRM_MINUTES (counted with the
    members' under the event's lock; a waiting member's offer comes first) and a mail with the link that confirms
    it. The same address again within the hold gets the same answer (and no second mail).

    A member's address gets the same answer and holds a place the same way, so neither the page, nor the places
    left, nor a second try tells who is a member; but the member gets no link to confirm it (it can never become
    their guest place, and goes when the hold ends, without their name): they are told by mail to sign up as the
    member they are. Raises ValidationError (per field) for bad input and EventError for a refusal."""
    name = " ".join((name or "").split())
    email = (email or "").strip().lower()
    errors = _guest_input_errors(name=name, email=email, safety_agreed=safety_agreed)
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(guest_token=token).first()
        if event is None or not event.open_for_guests:
            raise EventError(MESSAGE_GUEST_CLOSED, code=EventRefusal.GUESTS_CLOSED)
        event = _lock_upcoming_event(event.pk)
        now = timezone.now()
        earlier = EventGuest.objects.filter(event=event, email=email).first()
        if earlier is not None:
            if earlier.confirm_by is None:
                raise EventAlreadyJoined(MESSAGE_GUEST_DUPLICATE)
            if earlier.confirm_by > now:
                return earlier  # still waiting for its confirmation: the same answer as the first time
            earlier.delete()  # a hold that ran out: this sign-up starts anew
        refusal = _guest_room_refusal(event, now=now)
        if refusal is None:
            return _guest_hold(event, name=name, email=email, now=now)
    raise refusal  # after the commit: an offer made to a waiting member meanwhile stands


def _guest_hold(event: Event, *, name: str, email: str, now: datetime.datetime) -> EventGuest:
    """The held place and its mail (under the event's lock): the link to confirm it, or the member's note."""
    member = User.objects.filter(email__iexact=email).first()
    try:
        with transaction.atomic():
            guest = EventGuest.objects.create(
                event=event,
                name="" if member is not None else name,
                email=email,
                safety_agreed_at=now,
                created_at=now,
                confirm_by=guest_confirm_deadline(event, now=now),
            )
    except IntegrityError as exc:
        raise EventAlreadyJoined(MESSAGE_GUEST_DUPLICATE) from exc
    if member is not None:
        guest_link_member_notify(user=member, event=event)
    else:
        guest_confirmation_notify(guest=guest)
    return guest


class GuestConfirmed:
    """What `guest_confirm` did."""

    CONFIRMED = "confirmed"
    ALREADY = "already"  # a second tap on the link


def guest_confirm(*, guest_id: int, now: datetime.datetime | None = None) -> str | None:
    """The link in the guest's mail: the address is confirmed and the place is theirs. Within the hold the place
    is there; after it, only when there is still room (a waiting member comes first). Confirming twice is
    harmless (ALREADY); None when the sign-up has gone (cancelled, or cleaned up after its hold)."""
    now = now or timezone.now()
    with transaction.atomic():
        guest = EventGuest.objects.filter(pk=guest_id).only("event_id").first()
        if guest is None:
            return None
        event = _lock_upcoming_event(guest.event_id)
        guest = EventGuest.objects.filter(pk=guest_id).first()  # again, under the event's lock
        if guest is None:
            return None
        if guest.confirm_by is None:
            return GuestConfirmed.ALREADY
        if User.objects.filter(email__iexact=guest.email).exists():
            return None  # a member's address only ever held a place (guest_sign_up): it is no guest of theirs
        refusal = None
        if guest.confirm_by <= now:
            if not event.open_for_guests:
                raise EventError(MESSAGE_GUEST_CLOSED, code=EventRefusal.GUESTS_CLOSED)
            refusal = _guest_room_refusal(event, now=now)
        pages_changed(EVENTS)  # the organiser's lists show the guest, or the waitlist has a new offer
        if refusal is None:
            EventGuest.objects.filter(pk=guest_id).update(confirm_by=None)
            return GuestConfirmed.CONFIRMED
    # After the commit: an offer made to a waiting member meanwhile stands.
    raise EventError(MESSAGE_GUEST_CONFIRM_TOO_LATE, code=EventRefusal.GUEST_CONFIRM_TOO_LATE) from refusal


def guest_holds_expire(*, now: datetime.datetime | None = None) -> int:
    """Cron (`send_scheduled_mail`): sign-ups not confirmed in time go (with their mails), and the places they
    held are offered to the waitlist. Each event under its own lock, skipping one another run holds right now;
    idempotent. Returns how many sign-ups went."""
    now = now or timezone.now()
    removed = 0
    for event in _each_event_locked(EventGuest.objects.filter(confirm_by__lte=now)):
        pages_changed(EVENTS)
        _, deleted = EventGuest.objects.filter(event=event, confirm_by__lte=now).delete()
        removed += deleted.get(EventGuest._meta.label, 0)
        _offers_refresh(event, now=now)
    return removed


def guest_cancel(*, guest_id: int) -> bool:
    """The cancel link in the guest's mail: the place is offered to the waitlist. Returns False when the guest
    was already gone (a second tap). A past event keeps its guest list (the organiser invites from it)."""
    with transaction.atomic():
        pages_changed(EVENTS)
        guest = EventGuest.objects.filter(pk=guest_id).first()
        if guest is None:
            return False
        event = Event.objects.select_for_update().get(pk=guest.event_id)
        if event.event_date < timezone.now():
            raise EventError(MESSAGE_PAST, code=EventRefusal.PAST)
        deleted, _ = EventGuest.objects.filter(pk=guest_id).delete()
        if deleted:
            _offers_refresh(event)
        return bool(deleted)


@dataclass(frozen=True)
class GuestInvitations:
    invited: int  # invitations made and mailed
    skipped: int  # already invited, already a member, or an open invitation to that address


def guests_invite(*, guest_ids: Iterable[int], invited_by: User) -> GuestInvitations:
    """After the event, the organiser invites guests to join the club: each gets an invitation through the
    invitations service, with its mail. A guest invited before, or whose address has an account or an open
    invitation, is skipped. Only an admin (the role and a second factor) may."""
    if not invited_by.is_admin:
        raise EventError(MESSAGE_GUESTS_ADMIN_ONLY, code=EventRefusal.GUESTS_ADMIN_ONLY)
    now = timezone.now()
    invited = skipped = 0
    guests = list(EventGuest.objects.select_related("event").filter(pk__in=list(guest_ids)).order_by("pk"))
    if any(guest.event.event_date > now for guest in guests):
        raise EventError(MESSAGE_GUESTS_NOT_YET, code=EventRefusal.GUESTS_NOT_YET)
    for guest in guests:
        with transaction.atomic():
            pages_changed(EVENTS)  # the organiser's event page marks who was invited
            # Only a confirmed guest: an address nobody confirmed is not invited anywhere.
            locked = (
                EventGuest.objects.select_for_update()
                .filter(pk=guest.pk, invitation__isnull=True, confirm_by__isnull=True)
                .first()
            )
            if locked is None:
                skipped += 1
                continue
            try:
                invitation = invitation_create(invited_by=invited_by, email=locked.email, now=now)
            except ValidationError:
                skipped += 1
                continue
            locked.invitation = invitation
            locked.save(update_fields=["invitation"])
            invited += 1
    return GuestInvitations(invited=invited, skipped=skipped)


def guests_delete_old(*, now: datetime.datetime | None = None) -> int:
    """Cron: guests' data goes GUEST_KEEP_DAYS after their event, unless they became members (an account with
    their address). Their mails go with them (apps.events.signals). Returns how many went."""
    now = now or timezone.now()
    old = EventGuest.objects.filter(event__event_date__lt=now - datetime.timedelta(days=GUEST_KEEP_DAYS)).exclude(
        Exists(User.objects.filter(email__iexact=OuterRef("email")))
    )
    with transaction.atomic():
        pages_changed(EVENTS)
        deleted, _ = EventGuest.objects.filter(pk__in=list(old.values_list("pk", flat=True))).delete()
    return deleted
