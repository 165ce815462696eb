"""Aan de waterkant: at a club swim the organisers (and admins) keep, on their phones, who is in the water.

A tap names a swimmer (`SwimmerRef`: a participant, a guest of the guest link, or a guest added on the spot) and
what happened ("in" het water, "uit" = eruit) at the moment the phone says. Each swimmer keeps the latest "in" and
the latest "eruit", and the later of the two says where she is: taps commute, so two phones that tapped offline
agree on the later tap whatever order their queues arrive in, and a tap sent twice changes nothing (once).

Whoever goes in is at the swim: a member gets her attendance and its stamp (`attendance_present`, one swim one
stamp). "Iedereen is eruit" closes the list, only when it says nobody is in; a tap later than that opens it again,
and an older "in" that arrives after it counts as out at the closing (the later word wins).

The times are kept on the day of the swim only: `shore_forget` (the scheduled `forget_shore_times`) removes the
lists of earlier days, and only attendance remains. Every write locks the event's row, like attendance."""

import datetime
import uuid
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.errors import DomainError
from apps.events.models import Event, EventGuest, EventParticipant, guest_holds_place

from .models import SHORE_FIRST_NAME_MAX_LENGTH, ShoreList, ShoreSwimmer, in_water
from .refusals import AttendanceRefusal, ShoreRefusal
from .services import MESSAGE_UNKNOWN_EVENT, attendance_present

IN = "in"
OUT = "uit"
ADD_GUEST = "gast"
TAP_KINDS = (IN, OUT, ADD_GUEST)

MESSAGE_NOT_THE_DAY = "De lijst aan de waterkant is er op de dag van de zwempartij zelf."
MESSAGE_CANCELLED = "Deze zwempartij is afgelast."
MESSAGE_SWIMMER_UNKNOWN = "Deze zwemmer staat niet op de lijst van deze zwempartij. Laad de pagina opnieuw."
MESSAGE_BAD_TAP = "Deze tik klopt niet. Laad de pagina opnieuw en tik nog eens."
MESSAGE_NAME_EMPTY = "Vul de voornaam van de gast in."
MESSAGE_NAME_TOO_LONG = f"Een voornaam is hooguit {SHORE_FIRST_NAME_MAX_LENGTH} tekens."
MESSAGE_STILL_IN_WATER = "Volgens de lijst is nog niet iedereen eruit: {names}."


class ShoreError(DomainError):
    status = 409


@dataclass(frozen=True)
class SwimmerRef:
    """How the phones name a swimmer: `lid-<member id>`, `gast-<guest id>` or `nieuw-<uuid>` (added on the spot);
    exactly one of the three is set."""

    member_id: int | None = None
    guest_id: int | None = None
    spot_key: uuid.UUID | None = None

    @classmethod
    def parse(cls, text: object) -> "SwimmerRef":
        kind, _, value = str(text).partition("-")
        digits = value.isascii() and value.isdigit() and len(value) <= 18
        try:
            if kind == "lid" and digits:
                return cls(member_id=int(value))
            if kind == "gast" and digits:
                return cls(guest_id=int(value))
            if kind == "nieuw":
                return cls(spot_key=uuid.UUID(value))
        except ValueError:
            pass
        raise ShoreError(MESSAGE_BAD_TAP, code=ShoreRefusal.SHORE_BAD_TAP, status=400)

    @staticmethod
    def of(swimmer: ShoreSwimmer) -> str:
        if swimmer.user_id is not None:
            return f"lid-{swimmer.user_id}"
        if swimmer.guest_id is not None:
            return f"gast-{swimmer.guest_id}"
        return f"nieuw-{swimmer.spot_key}"


def shore_day(event: Event) -> datetime.date:
    return timezone.localdate(event.event_date)


def shore_open(event: Event, *, now: datetime.datetime) -> bool:
    return not event.is_cancelled and timezone.localdate(now) == shore_day(event)


def _locked(event_id: int, now: datetime.datetime) -> tuple[Event, ShoreList]:
    event = Event.objects.select_for_update().filter(pk=event_id).first()
    if event is None:
        raise ShoreError(MESSAGE_UNKNOWN_EVENT, code=AttendanceRefusal.EVENT_UNKNOWN, status=404)
    if event.is_cancelled:
        raise ShoreError(MESSAGE_CANCELLED, code=ShoreRefusal.SHORE_EVENT_CANCELLED)
    if timezone.localdate(now) != shore_day(event):
        raise ShoreError(MESSAGE_NOT_THE_DAY, code=ShoreRefusal.SHORE_NOT_THE_DAY)
    shore_list, _ = ShoreList.objects.get_or_create(event=event)
    return event, shore_list


def _unknown() -> ShoreError:
    return ShoreError(MESSAGE_SWIMMER_UNKNOWN, code=ShoreRefusal.SHORE_SWIMMER_UNKNOWN, status=404)


def _swimmer(event: Event, shore_list: ShoreList, ref: SwimmerRef, *, now: datetime.datetime) -> ShoreSwimmer:
    """The swimmer's row, made for a participant or a guest of the link the first time she is tapped."""
    if ref.spot_key is not None:
        found = ShoreSwimmer.objects.filter(shore_list=shore_list, spot_key=ref.spot_key).first()
        if found is None:
            raise _unknown()
        return found
    if ref.member_id is not None:
        found = ShoreSwimmer.objects.filter(shore_list=shore_list, user_id=ref.member_id).first()
        if found is None:
            if not EventParticipant.objects.filter(event=event, user_id=ref.member_id, user__is_active=True).exists():
                raise _unknown()
            found = ShoreSwimmer.objects.create(shore_list=shore_list, user_id=ref.member_id)
        return found
    guest_id = ref.guest_id
    if guest_id is None:
        raise _unknown()  # never: parse() sets one of the three
    found = ShoreSwimmer.objects.filter(shore_list=shore_list, guest_id=guest_id).first()
    if found is None:
        if not EventGuest.objects.filter(guest_holds_place(now), event=event, pk=guest_id).exists():
            raise _unknown()
        found = ShoreSwimmer.objects.create(shore_list=shore_list, guest_id=guest_id)
    return found


def first_name_clean(text: object) -> str:
    name = " ".join(str(text or "").split())
    if not name:
        raise ShoreError(MESSAGE_NAME_EMPTY, code=ShoreRefusal.SHORE_NAME_EMPTY, status=400)
    if len(name) > SHORE_FIRST_NAME_MAX_LENGTH or "\x00" in name:
        raise ShoreError(MESSAGE_NAME_TOO_LONG, code=ShoreRefusal.SHORE_NAME_EMPTY, status=400)
    return name


def shore_tap(
    *,
    event_id: int,
    organiser: User,
    swimmer: str,
    kind: str,
    tapped_at: datetime.datetime,
    first_name: str = "",
    now: datetime.datetime | None = None,
    meta: AuditMeta | None = None,
) -> ShoreSwimmer:
    """One tap of an organiser's phone, in the order it was tapped: `in` (het water in), `uit` (eruit), or `gast`
    (a guest added on the spot with her first name, `swimmer` = `nieuw-<uuid>` from the phone). A moment in the
    future is taken as now; one of another day is refused."""
    now = now or timezone.now()
    ref = SwimmerRef.parse(swimmer)
    if kind not in TAP_KINDS or (kind == ADD_GUEST and ref.spot_key is None):
        raise ShoreError(MESSAGE_BAD_TAP, code=ShoreRefusal.SHORE_BAD_TAP, status=400)
    tapped_at = min(tapped_at, now)
    with transaction.atomic():
        event, shore_list = _locked(event_id, now)
        if timezone.localdate(tapped_at) != shore_day(event):
            raise ShoreError(MESSAGE_NOT_THE_DAY, code=ShoreRefusal.SHORE_NOT_THE_DAY)
        if kind == ADD_GUEST:
            found, _ = ShoreSwimmer.objects.get_or_create(
                shore_list=shore_list, spot_key=ref.spot_key, defaults={"first_name": first_name_clean(first_name)}
            )
            return found
        found = _swimmer(event, shore_list, ref, now=now)
        if kind == OUT:
            if found.came_out_at is None or tapped_at > found.came_out_at:
                found.came_out_at = tapped_at
                found.save(update_fields=["came_out_at"])
            return found
        if found.went_in_at is None or tapped_at > found.went_in_at:
            found.went_in_at = tapped_at
        closed_at = shore_list.closed_at
        if closed_at is not None and tapped_at > closed_at:
            shore_list.closed_at = None  # someone went in after "Iedereen is eruit": the swim goes on
            shore_list.save(update_fields=["closed_at"])
        elif closed_at is not None and (found.came_out_at is None or found.came_out_at < closed_at):
            found.came_out_at = closed_at  # an older "in" than the closing: the closing said she was out
        found.save(update_fields=["went_in_at", "came_out_at"])
        if found.user_id is not None:
            _present(event, found, organiser=organiser, now=now, meta=meta)
    return found


def _present(event: Event, found: ShoreSwimmer, *, organiser: User, now: datetime.datetime, meta) -> None:
    """Whoever went in was there: her attendance, stamped once (one swim, one stamp)."""
    user = found.user
    if user is None or not user.is_active:
        return
    had_attendance = user.attendances.filter(event=event).exists()
    attendance_present(event=event, user=user, organiser=organiser, now=now)
    if meta is not None and not had_attendance:
        audit_record(
            meta=meta,
            action=AuditAction.ATTENDANCE_MARKED,
            target_type="event",
            target_id=event.pk,
            detail="1 aanwezig (aan de waterkant)",
        )


def shore_member_add(*, event_id: int, user: User, now: datetime.datetime | None = None) -> ShoreSwimmer:
    """A member who came without signing up, named by the organiser on the spot: on the list, not yet in."""
    now = now or timezone.now()
    with transaction.atomic():
        _event, shore_list = _locked(event_id, now)
        found, _ = ShoreSwimmer.objects.get_or_create(shore_list=shore_list, user=user)
    return found


def shore_close(*, event_id: int, now: datetime.datetime | None = None) -> ShoreList:
    """ "Iedereen is eruit": only when the list agrees that nobody is in the water."""
    now = now or timezone.now()
    with transaction.atomic():
        _event, shore_list = _locked(event_id, now)
        swimmers = ShoreSwimmer.objects.filter(shore_list=shore_list, went_in_at__isnull=False).select_related(
            "user", "guest"
        )
        still_in = [shore_name(swimmer) for swimmer in swimmers if in_water(swimmer.went_in_at, swimmer.came_out_at)]
        if still_in:
            raise ShoreError(
                MESSAGE_STILL_IN_WATER.format(names=", ".join(sorted(still_in))), code=ShoreRefusal.SHORE_STILL_IN_WATER
            )
        shore_list.closed_at = now
        shore_list.save(update_fields=["closed_at"])
    return shore_list


def shore_name(swimmer: ShoreSwimmer) -> str:
    if swimmer.user is not None:
        return swimmer.user.display_name
    if swimmer.guest is not None:
        return swimmer.guest.name
    return swimmer.first_name


def shore_forget(*, now: datetime.datetime | None = None) -> int:
    """The times of every swim before today go; attendance stays. Returns how many lists went."""
    today = timezone.localdate(now or timezone.now())
    start_of_today = timezone.make_aware(datetime.datetime.combine(today, datetime.time.min))
    _total, per_model = ShoreList.objects.filter(event__event_date__lt=start_of_today).delete()
    return per_model.get(ShoreList._meta.label, 0)
