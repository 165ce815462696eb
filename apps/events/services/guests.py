"""Guests: signing up without an account, cancelling, inviting them to become members, clean-up."""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

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
)
from ..notices import guest_confirmation_notify
from ..refusals import EventRefusal
from .common import (
    MESSAGE_PAST,
    EventAlreadyJoined,
    EventError,
    EventFull,
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
MESSAGE_GUEST_SIGNED_UP = (
    "Je bent aangemeld als gast! Je krijgt een bevestiging per e-mail, met een link om je af te melden."
)
MESSAGE_GUEST_DUPLICATE = "Met dit e-mailadres ben je al aangemeld als gast voor dit event."
MESSAGE_GUEST_IS_MEMBER = "Dit e-mailadres hoort bij een lid: log in en meld je aan op de eventspagina."
MESSAGE_GUEST_CLOSED = "Dit event is niet (meer) open voor gasten."
MESSAGE_GUEST_FULL = "Dit event is vol. Er is helaas geen plek meer voor gasten."
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


def guest_sign_up(*, token: str, name: str | None, email: str | None, safety_agreed: bool) -> EventGuest:
    """A guest's sign-up through the event's public link: a place, counted with the members' under the event's
    lock (a waiting member's offer comes first), and a confirmation mail with the cancel link. Raises
    ValidationError (per field) for bad input and EventError for a refusal."""
    name = " ".join((name or "").split())
    email = (email or "").strip().lower()
    errors = _guest_input_errors(name=name, email=email, safety_agreed=safety_agreed)
    if errors:
        raise ValidationError(errors)
    if User.objects.filter(email__iexact=email).exists():
        raise ValidationError({"email": [MESSAGE_GUEST_IS_MEMBER]})
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(guest_token=token).first()
        if event is None or not event.open_for_guests:
            raise EventError(MESSAGE_GUEST_CLOSED, code=EventRefusal.GUESTS_CLOSED)
        event = _lock_upcoming_event(event.pk)
        if EventGuest.objects.filter(event=event, email=email).exists():
            raise EventAlreadyJoined(MESSAGE_GUEST_DUPLICATE)
        if event.waitlist.exists():
            _offers_refresh(event)
        free = _free_places(event)
        if free is not None and free <= 0:
            raise EventFull(MESSAGE_GUEST_FULL)
        now = timezone.now()
        try:
            with transaction.atomic():
                guest = EventGuest.objects.create(
                    event=event, name=name, email=email, safety_agreed_at=now, created_at=now
                )
        except IntegrityError as exc:
            raise EventAlreadyJoined(MESSAGE_GUEST_DUPLICATE) from exc
        guest_confirmation_notify(guest=guest)
    return guest


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
            locked = EventGuest.objects.select_for_update().filter(pk=guest.pk, invitation__isnull=True).first()
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
