"""Samen plonsen: plonsafspraken (propose, join, leave, cancel), buddy requests (put on my card, or not),
and the safety briefing's read date.

A plonsafspraak's participants change only under the afspraak's row lock, and a proposal under the
proposer's row lock (at most MEETUP_MAX_OPEN open afspraken, counted under it). The unique constraint on
(afspraak, member) is the second guard: a double tap on "Ik ga mee" ends where the member wanted.
"""

import datetime
import uuid

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import DipBuddy
from apps.challenges.services.dips import DipOutcome, dip_register
from apps.core.errors import DomainError, NotFoundError
from apps.core.page_cache import MEMBER, TOGETHER, pages_changed

from . import notices
from .models import NOTE_MAX_LENGTH, PLACE_MAX_LENGTH, Meetup, MeetupParticipant
from .refusals import TogetherRefusal

MEETUP_MAX_DAYS_AHEAD = 14
MEETUP_MAX_OPEN = 3
# An afspraak stays on the list this long after its time (the ones who went may still look who was there).
MEETUP_SHOWN_AFTER = datetime.timedelta(hours=1)

MESSAGE_PROPOSED = "Je plonsafspraak staat erop. Wie gaat er mee?"
MESSAGE_WHEN_MISSING = "Vul in wanneer je gaat plonsen (datum en tijd)."
MESSAGE_PAST = "Dit moment is al voorbij. Kies een moment in de toekomst."
MESSAGE_TOO_FAR = f"Een plonsafspraak kan hoogstens {MEETUP_MAX_DAYS_AHEAD} dagen vooruit."
MESSAGE_TOO_MANY = f"Je hebt al {MEETUP_MAX_OPEN} open plonsafspraken. Wacht tot er een voorbij is, of annuleer er een."
MESSAGE_PLACE_MISSING = "Vul in waar je gaat plonsen."
MESSAGE_PLACE_TOO_LONG = f"Houd de plek kort: hoogstens {PLACE_MAX_LENGTH} tekens."
MESSAGE_NOTE_TOO_LONG = f"Houd je opmerking kort: hoogstens {NOTE_MAX_LENGTH} tekens."
MESSAGE_JOINED = "Je gaat mee!"
MESSAGE_LEFT = "Je gaat niet meer mee."
MESSAGE_CANCELLED = "De plonsafspraak is geannuleerd. Wie meeging, krijgt bericht."
MESSAGE_GONE = "Deze plonsafspraak gaat niet door of is al voorbij."
MESSAGE_STARTED = "Deze plonsafspraak is al begonnen."
MESSAGE_NOT_YOURS = "Alleen wie de afspraak voorstelde, kan hem annuleren."
MESSAGE_PROPOSER_STAYS = "Je hebt deze afspraak zelf voorgesteld. Gaat hij niet door? Annuleer hem dan."

MESSAGE_BUDDY_UNKNOWN = "Dit verzoek bestaat niet (meer)."
MESSAGE_BUDDY_ON_CARD = "De plons staat op je kaart. Fijn dat jullie samen gingen!"
# One swim, one stamp: the member had registered this swim already; the tagger is named on that dip.
MESSAGE_BUDDY_ALREADY = "Die plons stond al op je kaart: {name} is erbij gezet."
MESSAGE_BUDDY_DECLINED = "Genoteerd: deze plons komt niet op je kaart."
MESSAGE_BUDDY_DONE = "Dit verzoek heb je al beantwoord."

MESSAGE_BRIEFING_READ = "Dank je. Veilig plonsen!"


class TogetherError(DomainError):
    """A refused plonsafspraak or buddy answer; the message is Dutch and meant for the member."""

    status = 409


class MeetupGone(TogetherError, NotFoundError):
    status = 404

    def __init__(self, message: str = MESSAGE_GONE):
        super().__init__(message, code=TogetherRefusal.MEETUP_GONE)


# --- plonsafspraken ---------------------------------------------------------------------------------


def meetup_check(*, starts_at: datetime.datetime | None, place: str, note: str, now: datetime.datetime) -> None:
    """The rules of a new afspraak, each with its field's Dutch message (all at once)."""
    fields: dict[str, str] = {}
    if starts_at is None:
        fields["starts_at"] = MESSAGE_WHEN_MISSING
    elif starts_at <= now:
        fields["starts_at"] = MESSAGE_PAST
    elif starts_at > now + datetime.timedelta(days=MEETUP_MAX_DAYS_AHEAD):
        fields["starts_at"] = MESSAGE_TOO_FAR
    if not place:
        fields["place"] = MESSAGE_PLACE_MISSING
    elif len(place) > PLACE_MAX_LENGTH:
        fields["place"] = MESSAGE_PLACE_TOO_LONG
    if len(note) > NOTE_MAX_LENGTH:
        fields["note"] = MESSAGE_NOTE_TOO_LONG
    if fields:
        raise TogetherError(next(iter(fields.values())), code=TogetherRefusal.MEETUP_INVALID, status=400, fields=fields)


def meetup_propose(
    *,
    user: User,
    starts_at: datetime.datetime | None,
    place: str,
    note: str = "",
    now: datetime.datetime | None = None,
) -> Meetup:
    """ "Nieuwe plonsafspraak": the proposer goes along. At most MEETUP_MAX_OPEN open ones per member,
    counted under the member's row lock so that parallel proposals cannot slip past the limit."""
    now = now or timezone.now()
    place, note = " ".join(place.split()), note.strip()
    meetup_check(starts_at=starts_at, place=place, note=note, now=now)
    assert starts_at is not None  # checked above
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()
        open_count = Meetup.objects.filter(proposer=user, cancelled_at__isnull=True, starts_at__gt=now).count()
        if open_count >= MEETUP_MAX_OPEN:
            raise TogetherError(MESSAGE_TOO_MANY, code=TogetherRefusal.TOO_MANY_OPEN)
        meetup = Meetup.objects.create(proposer=user, starts_at=starts_at, place=place, note=note, created_at=now)
        MeetupParticipant.objects.create(meetup=meetup, user=user, created_at=now)
        pages_changed(TOGETHER)
    return meetup


def _lock_open_meetup(meetup_id: int, now: datetime.datetime) -> Meetup:
    meetup = Meetup.objects.select_for_update().filter(pk=meetup_id).first()
    if meetup is None or meetup.is_cancelled or meetup.starts_at + MEETUP_SHOWN_AFTER < now:
        raise MeetupGone()
    if meetup.starts_at <= now:
        raise TogetherError(MESSAGE_STARTED, code=TogetherRefusal.MEETUP_STARTED)
    return meetup


def meetup_join(*, user: User, meetup_id: int, now: datetime.datetime | None = None) -> MeetupParticipant:
    """ "Ik ga mee". Twice is once: the second call returns the first place."""
    now = now or timezone.now()
    with transaction.atomic():
        meetup = _lock_open_meetup(meetup_id, now)
        existing = MeetupParticipant.objects.filter(meetup=meetup, user=user).first()
        if existing is not None:
            return existing
        try:
            with transaction.atomic():  # a savepoint: the lock survives a constraint violation
                participant = MeetupParticipant.objects.create(meetup=meetup, user=user, created_at=now)
        except IntegrityError:
            return MeetupParticipant.objects.get(meetup=meetup, user=user)
        if meetup.proposer_id != user.pk:
            notices.meetup_joined(meetup=meetup, user=user)
        pages_changed(TOGETHER)
    return participant


def meetup_leave(*, user: User, meetup_id: int, now: datetime.datetime | None = None) -> bool:
    """ "Toch niet". Not going is not an error (a double tap ends where the member wanted). Returns whether
    the member was going. The proposer cancels instead."""
    now = now or timezone.now()
    with transaction.atomic():
        meetup = _lock_open_meetup(meetup_id, now)
        if meetup.proposer_id == user.pk:
            raise TogetherError(MESSAGE_PROPOSER_STAYS, code=TogetherRefusal.PROPOSER_STAYS)
        deleted, _ = MeetupParticipant.objects.filter(meetup=meetup, user=user).delete()
        if deleted:
            pages_changed(TOGETHER)
    return bool(deleted)


def meetup_cancel(*, user: User, meetup_id: int, now: datetime.datetime | None = None) -> Meetup:
    """ "Afspraak annuleren": only the proposer, before its time. Those who joined are told, once: a second
    cancel (a double tap) finds it cancelled and tells nobody again."""
    now = now or timezone.now()
    with transaction.atomic():
        meetup = Meetup.objects.select_for_update().filter(pk=meetup_id).first()
        if meetup is None:
            raise MeetupGone()
        if meetup.proposer_id != user.pk:
            raise TogetherError(MESSAGE_NOT_YOURS, code=TogetherRefusal.NOT_YOURS, status=403)
        if meetup.is_cancelled:
            return meetup
        if meetup.starts_at <= now:
            raise TogetherError(MESSAGE_STARTED, code=TogetherRefusal.MEETUP_STARTED)
        meetup.cancelled_at = now
        meetup.save(update_fields=["cancelled_at"])
        joined = list(MeetupParticipant.objects.filter(meetup=meetup).exclude(user=user).select_related("user"))
        for participant in joined:
            notices.meetup_cancelled(meetup=meetup, user=participant.user)
        pages_changed(TOGETHER)
    return meetup


# --- buddy requests ---------------------------------------------------------------------------------

# Put on the buddy's card once, however often they tap: the request id of their dip is made from the tag.
_BUDDY_DIP_NAMESPACE = uuid.UUID("5b7c0b0e-2a51-4c55-9a39-1f0f2f8d6a24")


def buddy_request_id(tag_id: int) -> uuid.UUID:
    return uuid.uuid5(_BUDDY_DIP_NAMESPACE, f"dip-buddy:{tag_id}")


def _lock_tag(*, user: User, tag_id: int) -> DipBuddy:
    tag = DipBuddy.objects.select_for_update(of=("self",)).select_related("dip").filter(pk=tag_id, buddy=user).first()
    if tag is None:
        raise TogetherError(MESSAGE_BUDDY_UNKNOWN, code=TogetherRefusal.BUDDY_UNKNOWN, status=404)
    return tag


def buddy_accept(*, user: User, tag_id: int, now: datetime.datetime | None = None) -> DipOutcome:
    """ "Zet op mijn kaart": a dip on the member's active card on the date of the buddy's dip, through
    dip_register, so every rule of a dip holds (a completed card, the target, the daily limit, badges).
    Under the tag's lock; a second tap (or two at once) gets the same dip back (the request id).
    One swim, one stamp: when the member has a dip of that swim already (same_swim.py), dip_register
    confirms it (`outcome.confirmed`) and the tag names that dip as `buddy_dip` ("Met Anna" on it)."""
    now = now or timezone.now()
    with transaction.atomic():
        tag = _lock_tag(user=user, tag_id=tag_id)
        if tag.status == DipBuddy.Status.DECLINED:
            raise TogetherError(MESSAGE_BUDDY_DONE, code=TogetherRefusal.BUDDY_DONE)
        outcome = dip_register(
            user=user,
            request_id=buddy_request_id(tag.pk),
            trusted_moment=_moment_on(tag.dip.dip_date, tag.dip.created_at),
            now=now,
        )
        if tag.status == DipBuddy.Status.PENDING:
            tag.status = DipBuddy.Status.ACCEPTED
            tag.buddy_dip = outcome.dip
            tag.decided_at = now
            tag.save(update_fields=["status", "buddy_dip", "decided_at"])
        pages_changed(MEMBER, user_ids=[user.pk, tag.dip.user_id])
    return outcome


def _moment_on(day: datetime.date, moment: datetime.datetime) -> datetime.datetime:
    """The buddy's dip moment, which lies on `day` in the club's time zone (dip_date is the local date)."""
    local = timezone.localtime(moment)
    if local.date() == day:
        return moment
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))


def buddy_decline(*, user: User, tag_id: int, now: datetime.datetime | None = None) -> DipBuddy:
    """ "Klopt niet": the tag stays on the other's dip as declined; nothing comes on the member's card."""
    now = now or timezone.now()
    with transaction.atomic():
        tag = _lock_tag(user=user, tag_id=tag_id)
        if tag.status == DipBuddy.Status.ACCEPTED:
            raise TogetherError(MESSAGE_BUDDY_DONE, code=TogetherRefusal.BUDDY_DONE)
        if tag.status == DipBuddy.Status.PENDING:
            tag.status = DipBuddy.Status.DECLINED
            tag.decided_at = now
            tag.save(update_fields=["status", "decided_at"])
            pages_changed(MEMBER, user_ids=[user.pk, tag.dip.user_id])
    return tag


def tagging_set(*, user: User, allowed: bool) -> None:
    """ "Anderen mogen mij taggen" on /account."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(tagging_allowed=allowed)
        user.tagging_allowed = allowed
        # /account shows the choice; the stamp cards of those going along to her afspraak offer her, or not.
        pages_changed(MEMBER, TOGETHER, user_ids=[user.pk])


# --- the safety briefing ----------------------------------------------------------------------------


def briefing_read(*, user: User, today: datetime.date | None = None) -> datetime.date:
    """ "Ik heb het gelezen": only the date is kept (due again in the next season: briefing_due)."""
    today = today or timezone.localdate()
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(safety_briefing_read_on=today)
        user.safety_briefing_read_on = today
        pages_changed(MEMBER, user_ids=[user.pk])
    return today
