"""A dip: registered (`dip_register` is the only way one is made), checked before the photo, its details
changed afterwards, undone by the member within the window, deleted by an admin."""

import datetime
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.services import member_pages_changed
from apps.core.formatting import dutch_date

from ..conditions import DipConditions
from ..models import Badge, Dip, UserBadge, UserChallenge, photo_storage
from ..photos import ProcessedPhoto
from .errors import ChallengeError, DipNotFoundError
from .recount import card_recount_after_dip_removal, member_lock, user_dip_count_refresh

# A mis-tap can be taken back for this long; after that a dip is part of the member's history.
UNDO_WINDOW_MINUTES = 10
UNDO_WINDOW = datetime.timedelta(minutes=UNDO_WINDOW_MINUTES)

MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_DIP_UNKNOWN = "Deze plons bestaat niet (meer)."
MESSAGE_UNDO_TOO_LATE = (
    f"Deze plons kan niet meer ongedaan worden gemaakt. Dat kan alleen bij je laatste plons, "
    f"tot {UNDO_WINDOW_MINUTES} minuten na het registreren."
)
MESSAGE_OTHER_CARD = "Deze plons hoort bij een challenge die niet meer actief is. Hij is niet geteld."

# A dip tapped without signal counts on the moment of the tap when it arrives within this time.
TAP_TIME_MAX_AGE = datetime.timedelta(hours=72)
# A phone's clock may run this far behind the server's: a tap that little before the card's start counts at
# the start; earlier it cannot have been made on this card.
TAP_CLOCK_SKEW = datetime.timedelta(minutes=10)
MESSAGE_TAP_BEFORE_START = "Deze plons is getikt voordat je challenge begon. Hij is niet geteld."
MESSAGE_DAILY_LIMIT_THAT_DAY = "Op {date} heb je al een plons geregistreerd. Er telt één plons per dag."


@dataclass(frozen=True)
class DipOutcome:
    dip: Dip
    dip_count: int
    badge: Badge | None
    award: UserBadge | None
    completed: bool
    user_challenge: UserChallenge
    replayed: bool = False


def dip_register(
    *,
    user: User,
    photo: ProcessedPhoto | None = None,
    request_id: uuid.UUID | None = None,
    conditions: DipConditions | None = None,
    tapped_at: datetime.datetime | None = None,
    user_challenge_id: int | None = None,
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    `conditions` (water temperature, time, spot, note) are optional; wrong ones raise ConditionsError
    before anything is written.
    A dip sent later from the phone (tapped without signal) brings `tapped_at`, the moment of the tap,
    and `user_challenge_id`, the card it was tapped on: see `dip_moment`, and another card refuses it.
    """
    now = now or timezone.now()
    conditions = conditions or DipConditions()
    conditions.check()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(
            user=user,
            photo_names=names,
            request_id=request_id,
            conditions=conditions,
            user_challenge_id=user_challenge_id,
            tapped_at=tapped_at,
            now=now,
        )
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    return outcome


def dip_moment(
    *, tapped_at: datetime.datetime | None, now: datetime.datetime, card_started_at: datetime.datetime | None = None
) -> datetime.datetime:
    """When a dip counts: the moment of the tap when it is in the past and at most 72 hours old, else now.

    The phone's clock is trusted only that far: a tap "from the future" or from long ago gets the server's time.
    A tap before the card started (`card_started_at`) is refused (ChallengeError), unless it is within
    TAP_CLOCK_SKEW of the start: then it counts at the start.
    """
    if tapped_at is None or not now - TAP_TIME_MAX_AGE <= tapped_at <= now:
        return now
    if card_started_at is not None and tapped_at < card_started_at:
        if tapped_at < card_started_at - TAP_CLOCK_SKEW:
            raise ChallengeError(MESSAGE_TAP_BEFORE_START)
        return min(card_started_at, now)
    return tapped_at


def _photo_delete(names: tuple[str, str]) -> None:
    for name in names:
        if name:
            photo_storage().delete(name)


def _dip_register_locked(
    *,
    user: User,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    conditions: DipConditions,
    user_challenge_id: int | None,
    tapped_at: datetime.datetime | None,
    now: datetime.datetime,
) -> DipOutcome:
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(user=user, is_active=True)
            .first()
        )
        if card is None:
            raise ChallengeError(MESSAGE_NO_ACTIVE if user_challenge_id is None else MESSAGE_OTHER_CARD)
        if user_challenge_id is not None and card.pk != user_challenge_id:
            raise ChallengeError(MESSAGE_OTHER_CARD)
        earlier = card.dips.filter(request_id=request_id).first() if request_id else None
        if earlier is not None:
            return _replay(card, earlier)
        # Judged under the card's lock, against its start: a claimed tap time cannot reach days before it.
        moment = dip_moment(tapped_at=tapped_at, now=now, card_started_at=card.started_at)
        target = card.challenge.target_dips
        count = card.dips.count()
        today = timezone.localdate(moment)
        refusal = _card_refusal(card, count=count, today=today, server_today=timezone.localdate(now))
        if refusal is not None:
            raise ChallengeError(refusal)

        number = count + 1
        dip = Dip.objects.create(
            user=user,
            user_challenge=card,
            number=number,
            dip_date=today,
            photo=photo_names[0],
            thumbnail=photo_names[1],
            created_at=moment,
            request_id=request_id,
            water_temperature=conditions.water_temperature,
            duration_seconds=conditions.duration_seconds,
            spot=conditions.spot,
            note=conditions.note,
        )
        user_dip_count_refresh(user_id=user.pk)
        badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
        award = None
        if badge is not None:
            # A physical badge posted before its dip was undone kept its award: the member has it already.
            award = UserBadge.objects.filter(user_challenge=card, badge=badge).first() or UserBadge.objects.create(
                user=user, badge=badge, user_challenge=card, earned_at=moment
            )
        completed = number >= target
        if completed:
            card.completed_at = moment
            card.save(update_fields=["completed_at"])
        return DipOutcome(dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card)


def _card_refusal(
    card: UserChallenge, *, count: int, today: datetime.date, server_today: datetime.date | None = None
) -> str | None:
    """Why this card takes no dip on the day `today` (Dutch), or None. `server_today` is the real day, when
    `today` is the day of a tap sent later: the daily limit holds per calendar day of the dip (dip_date), so
    taps claimed on earlier days can each take only a day that has no dip yet."""
    if card.is_completed:
        return MESSAGE_COMPLETED
    if count >= card.challenge.target_dips:
        return MESSAGE_MAXIMUM.format(target=card.challenge.target_dips)
    if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
        if server_today is None or today == server_today:
            return MESSAGE_DAILY_LIMIT
        return MESSAGE_DAILY_LIMIT_THAT_DAY.format(date=dutch_date(today))
    return None


@dataclass(frozen=True)
class DipPrecheck:
    """What dip_register would say before the photo is read: has_card False means refuse at once."""

    has_card: bool
    refusal: str | None


def dip_precheck(*, user: User, now: datetime.datetime | None = None) -> DipPrecheck:
    """The cheap refusals of dip_register, read without a lock, so that a dip that cannot count never
    costs a photo upload or decode. dip_register checks it all again under the card's lock.

    With a card that is full or done, a resend of a dip already stored (same request id) still gets
    its earlier answer from dip_register: hence the refusal is returned, not raised.
    """
    card = UserChallenge.objects.select_related("challenge").filter(user=user, is_active=True).first()
    if card is None:
        return DipPrecheck(has_card=False, refusal=MESSAGE_NO_ACTIVE)
    today = timezone.localdate(now or timezone.now())
    return DipPrecheck(has_card=True, refusal=_card_refusal(card, count=card.dips.count(), today=today))


def _replay(card: UserChallenge, dip: Dip) -> DipOutcome:
    award = (
        UserBadge.objects.filter(user_challenge=card, badge__milestone_dips=dip.number).select_related("badge").first()
    )
    return DipOutcome(
        dip=dip,
        dip_count=card.dips.count(),
        badge=award.badge if award else None,
        award=award,
        completed=card.is_completed and dip.number == card.challenge.target_dips,
        user_challenge=card,
        replayed=True,
    )


def _photo_save(*, user: User, photo: ProcessedPhoto, now: datetime.datetime) -> tuple[str, str]:
    stamp = timezone.localtime(now).strftime("%Y%m%dT%H%M%S%f")
    storage = photo_storage()
    full = storage.save(f"{user.pk}/{stamp}.{photo.extension}", ContentFile(photo.full))
    try:
        thumbnail = storage.save(f"{user.pk}/{stamp}.thumb.{photo.extension}", ContentFile(photo.thumbnail))
    except BaseException:
        storage.delete(full)
        raise
    return full, thumbnail


def dip_delete(*, dip_id: int) -> UserChallenge:
    """Delete one dip and keep its card whole: the later dips close the gap, badges beyond the new count
    go, and a completed card below its target is open again. The photo files go after the commit (the
    post_delete signal of Dip). Returns the card as it is now. Raises ChallengeError when the dip is gone.
    """
    with transaction.atomic():
        found = Dip.objects.filter(pk=dip_id).values_list("user_challenge_id", "user_id").first()
        if found is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        card_id, user_id = found
        member_lock(user_id=user_id)
        # The same lock as dip_register: a dip registered meanwhile waits until the card is whole again.
        card = (
            UserChallenge.objects.select_for_update(of=("self",)).select_related("challenge").filter(pk=card_id).first()
        )
        # Read again under the lock: a parallel delete (of the dip, or of the whole account) may have won.
        dip = card.dips.filter(pk=dip_id).first() if card is not None else None
        if card is None or dip is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        dip.delete()
        user_dip_count_refresh(user_id=dip.user_id)
        card_recount_after_dip_removal(card=card, removed_number=dip.number)
    return card


def dip_details_update(
    *, user: User, dip_id: int, conditions: DipConditions, photo: ProcessedPhoto | None = None
) -> Dip:
    """Set the conditions of one of the member's own dips afterwards, and add or replace its photo.

    The conditions replace what was logged (an empty field clears it). A replaced photo's files are
    removed once the change is committed; the new files are removed again when the change fails.
    """
    conditions.check()
    names = _photo_save(user=user, photo=photo, now=timezone.now()) if photo else ("", "")
    try:
        with transaction.atomic():
            member_lock(user_id=user.pk)
            dip = Dip.objects.select_for_update().filter(pk=dip_id, user=user).first()
            if dip is None:
                raise DipNotFoundError(MESSAGE_DIP_UNKNOWN)
            dip.water_temperature = conditions.water_temperature
            dip.duration_seconds = conditions.duration_seconds
            dip.spot = conditions.spot
            dip.note = conditions.note
            fields = ["water_temperature", "duration_seconds", "spot", "note"]
            if photo:
                replaced = (dip.photo.name, dip.thumbnail.name)
                dip.photo, dip.thumbnail = names
                fields += ["photo", "thumbnail"]
                transaction.on_commit(lambda: _photo_delete(replaced))
            dip.save(update_fields=fields)
            member_pages_changed(user_ids=[user.pk])
    except BaseException:
        _photo_delete(names)
        raise
    return dip


@dataclass(frozen=True)
class UndoOutcome:
    dip_id: int
    dip_count: int
    user_challenge: UserChallenge
    revoked_badge_ids: tuple[int, ...]


def dip_undo(*, user: User, dip_id: int, now: datetime.datetime | None = None) -> UndoOutcome:
    """Take back a mis-tap: the member's latest dip on their active card, within UNDO_WINDOW.

    Under the card's lock, so a dip registered at the same moment cannot slip in between. The badge
    and the completion the dip brought are taken back in the same transaction; its photo files go
    after the commit (the post_delete signal of Dip).
    """
    now = now or timezone.now()
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card_id = Dip.objects.filter(pk=dip_id, user=user).values_list("user_challenge_id", flat=True).first()
        if card_id is None:
            raise DipNotFoundError(MESSAGE_DIP_UNKNOWN)
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(pk=card_id, user=user)
            .first()
        )
        latest = card.dips.order_by("-number").first() if card is not None else None
        if card is None or latest is None or latest.pk != dip_id:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        if not card.is_active or latest.created_at < now - UNDO_WINDOW:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        latest.delete()
        revoked = card_recount_after_dip_removal(card=card, removed_number=latest.number)
        user_dip_count_refresh(user_id=user.pk)
        return UndoOutcome(dip_id=dip_id, dip_count=card.dips.count(), user_challenge=card, revoked_badge_ids=revoked)
