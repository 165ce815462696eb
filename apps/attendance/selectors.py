"""Reads for the attendance form on /admin/events/<id>: who can be ticked, who is, and what got stamped."""

from dataclasses import dataclass

from django.db.models import Q

from apps.accounts.models import User
from apps.core.errors import DomainError
from apps.events.models import Event, EventParticipant

from .models import Attendance
from .refusals import AttendanceRefusal

FIND_MAX_LENGTH = 254
MESSAGE_FIND_EMPTY = "Vul de naam of het e-mailadres in van het lid dat zonder aanmelding kwam."
MESSAGE_FIND_NONE = "Geen lid gevonden met die naam of dat e-mailadres."
MESSAGE_FIND_MANY = "Er zijn meerdere leden met die naam. Gebruik het e-mailadres."


@dataclass(frozen=True)
class AttendanceRow:
    user: User
    signed_up: bool  # on the participant list (else a walk-in)
    present: bool
    stamped: bool  # a dip on the card from this sign-off


def attendance_rows(event: Event) -> list[AttendanceRow]:
    """Participants in sign-up order, then walk-ins: two queries whatever the size of the event."""
    participants = list(
        EventParticipant.objects.filter(event=event).select_related("user").order_by("created_at", "pk")
    )
    records = {record.user_id: record for record in Attendance.objects.filter(event=event).select_related("user")}
    rows = [
        AttendanceRow(
            user=participant.user,
            signed_up=True,
            present=participant.user_id in records,
            stamped=participant.user_id in records and records[participant.user_id].dip_id is not None,
        )
        for participant in participants
    ]
    listed = {participant.user_id for participant in participants}
    rows += [
        AttendanceRow(user=record.user, signed_up=False, present=True, stamped=record.dip_id is not None)
        for record in records.values()
        if record.user_id not in listed
    ]
    return rows


def member_find(text: str) -> User:
    """The member the organiser named (e-mail address, or exact name): one active member, or a Dutch refusal."""
    text = " ".join(text.split())
    if not text:
        raise DomainError(MESSAGE_FIND_EMPTY, code=AttendanceRefusal.FIND_EMPTY)
    if "\x00" in text or len(text) > FIND_MAX_LENGTH:  # no name or address holds these
        raise DomainError(MESSAGE_FIND_NONE, code=AttendanceRefusal.FIND_NONE)
    found = list(User.objects.filter(Q(email__iexact=text) | Q(full_name__iexact=text), is_active=True)[:2])
    if not found:
        raise DomainError(MESSAGE_FIND_NONE, code=AttendanceRefusal.FIND_NONE)
    exact = [user for user in found if user.email.lower() == text.lower()]
    if exact:
        return exact[0]
    if len(found) > 1:
        raise DomainError(MESSAGE_FIND_MANY, code=AttendanceRefusal.FIND_MANY)
    return found[0]
