"""Aftekenen: from an event's start until 48 hours after, the organiser ticks "Was erbij" per participant (and
may add a member who came without signing up). Saving stamps a dip on each ticked member's active card for the
event's date through `dip_register` (every rule of the card applies); unticking takes that dip back through
`dip_delete`, the same recount as an undo.

Idempotent and race-safe: the event's row is locked for the whole save, one attendance row per member and
event (a unique constraint), and each stamp carries a request id made of the event and the member, so the
card itself answers a second stamp with the first one.

One swim, one stamp (apps/challenges/services/same_swim.py): a member who registered the dip of this club swim
themselves keeps that dip; the tick signs it off ("Afgetekend door …", the attendance row names it) and adds
none. Unticking then takes only the sign-off back, never the member's own dip."""

import datetime
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.challenges.refusals import DipRefusal
from apps.challenges.services import dips as dip_services
from apps.challenges.services.dip_changes import dip_delete
from apps.challenges.services.errors import ChallengeError
from apps.core.errors import DomainError
from apps.core.formatting import dutch_date
from apps.core.page_cache import EVENTS, pages_changed
from apps.events.models import Event, EventParticipant

from .models import Attendance
from .refusals import AttendanceRefusal

WINDOW_AFTER_START = datetime.timedelta(hours=48)
ATTENDANCE_NAMESPACE = uuid.UUID("6f1c2a8e-27a0-4d5e-9a57-0b1e7c0ffee0")

MESSAGE_NOT_YET = "Aftekenen kan vanaf de start van het event, {start}."
MESSAGE_TOO_LATE = "Aftekenen kon tot 48 uur na de start van het event. Dat is voorbij."
MESSAGE_CANCELLED = "Dit event is afgelast: er valt niets af te tekenen."
MESSAGE_UNKNOWN_EVENT = "Dit event bestaat niet (meer)."
MESSAGE_NOT_ON_LIST = (
    "Dit lid staat niet op de deelnemerslijst. Voeg wie zonder aanmelding kwam toe met naam of e-mailadres."
)
MESSAGE_SAVED = "De aanwezigheid is opgeslagen."
MESSAGE_STAMPED = "Afgetekend op de kaart: {names}."
MESSAGE_CONFIRMED = "Stond al op de kaart, nu afgetekend: {names}."
MESSAGE_TAKEN_BACK = "Plons teruggenomen bij: {names}."
MESSAGE_NO_CARD = "{name} heeft geen actieve challenge: er is niets afgetekend."
MESSAGE_ALREADY_THAT_DAY = "{name} heeft op {date} al een plons op de kaart: er is niets extra afgetekend."
MESSAGE_CARD_FULL = "De challenge van {name} is al vol of voltooid: er is niets afgetekend."
MESSAGE_CARD_LATER = "De challenge van {name} begon na dit event: er is niets afgetekend."
MESSAGE_NOT_STAMPED = "Bij {name} is niets afgetekend: {reason}"


class AttendanceError(DomainError):
    status = 409


@dataclass
class AttendanceResult:
    stamped: list[str] = field(default_factory=list)  # names whose card got the dip now
    confirmed: list[str] = field(default_factory=list)  # names whose own dip of this swim was signed off
    taken_back: list[str] = field(default_factory=list)  # names whose dip went back
    refusals: list[str] = field(default_factory=list)  # one Dutch sentence per member nothing was stamped for


def attendance_window(event: Event) -> tuple[datetime.datetime, datetime.datetime]:
    return event.event_date, event.event_date + WINDOW_AFTER_START


def attendance_open(event: Event, *, now: datetime.datetime | None = None) -> bool:
    start, end = attendance_window(event)
    return not event.is_cancelled and start <= (now or timezone.now()) <= end


def _window_check(event: Event, now: datetime.datetime) -> None:
    if event.is_cancelled:
        raise AttendanceError(MESSAGE_CANCELLED, code=AttendanceRefusal.EVENT_CANCELLED)
    start, end = attendance_window(event)
    if now < start:
        local = timezone.localtime(start)
        raise AttendanceError(
            MESSAGE_NOT_YET.format(start=f"{dutch_date(local.date())} om {local:%H:%M}"), code=AttendanceRefusal.NOT_YET
        )
    if now > end:
        raise AttendanceError(MESSAGE_TOO_LATE, code=AttendanceRefusal.TOO_LATE)


def stamp_request_id(*, event_id: int, user_id: int) -> uuid.UUID:
    """The same for every save of this member at this event: the card replays it instead of adding a dip."""
    return uuid.uuid5(ATTENDANCE_NAMESPACE, f"{event_id}:{user_id}")


def _refusal(name: str, event: Event, error: ChallengeError) -> str:
    if error.code in (DipRefusal.NO_CARD, DipRefusal.OTHER_CARD):
        return MESSAGE_NO_CARD.format(name=name)
    if error.code == DipRefusal.DAY_TAKEN:
        return MESSAGE_ALREADY_THAT_DAY.format(name=name, date=dutch_date(timezone.localdate(event.event_date)))
    if error.code in (DipRefusal.CARD_DONE, DipRefusal.CARD_FULL):
        return MESSAGE_CARD_FULL.format(name=name)
    if error.code == DipRefusal.BEFORE_CARD_START:
        return MESSAGE_CARD_LATER.format(name=name)
    return MESSAGE_NOT_STAMPED.format(name=name, reason=error.message)


def _stamp(record: Attendance, *, event: Event, now: datetime.datetime, result: AttendanceResult) -> None:
    user = record.user
    try:
        outcome = dip_services.dip_register(
            user=user,
            request_id=stamp_request_id(event_id=event.pk, user_id=user.pk),
            tapped_at=event.event_date,
            now=now,
        )
    except ChallengeError as error:
        result.refusals.append(_refusal(user.display_name, event, error))
        return
    if Attendance.objects.filter(dip=outcome.dip).exclude(pk=record.pk).exists():
        return  # never: the request id belongs to this member and event
    record.dip = outcome.dip
    record.save(update_fields=["dip", "signed_off_by"])
    if outcome.confirmed:
        result.confirmed.append(user.display_name)
    elif not outcome.replayed:
        result.stamped.append(user.display_name)


def stamped_by_sign_off(record: Attendance) -> bool:
    """Whether the row's dip was made by the sign-off (its request id), not the member's own dip it confirmed."""
    request_id = stamp_request_id(event_id=record.event_id, user_id=record.user_id)
    return record.dip is not None and record.dip.request_id == request_id


def attendance_save(
    *,
    event_id: int,
    organiser: User,
    present_user_ids: Iterable[int],
    walk_in: User | None = None,
    now: datetime.datetime | None = None,
    meta: AuditMeta | None = None,
) -> AttendanceResult:
    """Make the event's attendance what the organiser ticked: `present_user_ids` (participants or members
    ticked before), plus `walk_in`, a member who came without signing up. New ticks stamp a dip; a tick that
    could not stamp before (no card then) is tried again; a tick taken away takes its dip back."""
    now = now or timezone.now()
    result = AttendanceResult()
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event.objects.select_for_update().filter(pk=event_id).first()
        if event is None:
            raise AttendanceError(MESSAGE_UNKNOWN_EVENT, code=AttendanceRefusal.EVENT_UNKNOWN, status=404)
        _window_check(event, now)
        present = set(present_user_ids)
        if walk_in is not None:
            present.add(walk_in.pk)
        records = {
            record.user_id: record for record in Attendance.objects.select_related("user", "dip").filter(event=event)
        }
        participants = set(EventParticipant.objects.filter(event=event).values_list("user_id", flat=True))
        allowed = participants | set(records) | ({walk_in.pk} if walk_in is not None else set())
        if present - allowed:
            raise AttendanceError(MESSAGE_NOT_ON_LIST, code=AttendanceRefusal.NOT_ON_LIST, status=400)
        users = {user.pk: user for user in User.objects.filter(pk__in=present - set(records), is_active=True)}
        # In the order of the member ids: two saves lock the members' rows in the same order.
        for user_id in sorted(present | set(records)):
            record = records.get(user_id)
            if user_id in present:
                if record is None:
                    if user_id not in users:
                        continue  # an account deleted or closed meanwhile
                    record = Attendance.objects.create(event=event, user=users[user_id], signed_off_by=organiser)
                if record.dip_id is None:
                    record.signed_off_by = organiser
                    _stamp(record, event=event, now=now, result=result)
            elif record is not None:
                if record.dip_id is not None and stamped_by_sign_off(record):
                    try:
                        dip_delete(dip_id=record.dip_id)
                    except ChallengeError:
                        pass  # the dip was deleted meanwhile: nothing left to take back
                    else:
                        result.taken_back.append(record.user.display_name)
                record.delete()
        if meta is not None:  # the audit log, in this transaction: the event and how many, no names
            audit_record(
                meta=meta,
                action=AuditAction.ATTENDANCE_MARKED,
                target_type="event",
                target_id=event.pk,
                detail=f"{len(present)} aanwezig",
            )
    return result


def attendance_present(*, event: Event, user: User, organiser: User, now: datetime.datetime) -> AttendanceResult:
    """`user` was at the swim (the shore list's "in het water"): in the caller's transaction, with the event's row
    locked by it. A member already ticked stays as she is; a new one gets her stamp (one swim, one stamp: her own
    dip of this swim is signed off instead). Refusals of the card (no active challenge …) are in the result."""
    result = AttendanceResult()
    record, created = Attendance.objects.select_related("user", "dip").get_or_create(
        event=event, user=user, defaults={"signed_off_by": organiser}
    )
    if created:
        pages_changed(EVENTS)
    if record.dip_id is None:
        record.signed_off_by = organiser
        _stamp(record, event=event, now=now, result=result)
    return result
