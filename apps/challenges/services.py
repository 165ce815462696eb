"""Challenge rules. `dip_register` is the only way a dip is made."""

import datetime
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User

from .conditions import DipConditions
from .models import Badge, Challenge, Dip, UserBadge, UserChallenge, photo_storage
from .photos import ProcessedPhoto

# A mis-tap can be taken back for this long; after that a dip is part of the member's history.
UNDO_WINDOW_MINUTES = 10
UNDO_WINDOW = datetime.timedelta(minutes=UNDO_WINDOW_MINUTES)

MESSAGE_ALREADY_WATERDIEREN = "Je hebt al een actieve Waterdieren Stempelkaart!"
MESSAGE_ALREADY_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."
MESSAGE_CHALLENGE_UNAVAILABLE = "Deze challenge is niet beschikbaar."
MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."
MESSAGE_DIP_UNKNOWN = "Deze plons bestaat niet (meer)."
MESSAGE_UNDO_TOO_LATE = (
    f"Deze plons kan niet meer ongedaan worden gemaakt. Dat kan alleen bij je laatste plons, "
    f"tot {UNDO_WINDOW_MINUTES} minuten na het registreren."
)


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


class DipNotFoundError(ChallengeError):
    """No such dip of this member (someone else's dip is answered the same way)."""


@dataclass(frozen=True)
class DipOutcome:
    dip: Dip
    dip_count: int
    badge: Badge | None
    award: UserBadge | None
    completed: bool
    user_challenge: UserChallenge
    replayed: bool = False


def challenge_start(*, user: User, challenge_id: int) -> UserChallenge:
    """Start a challenge. One unfinished challenge at a time; finished ones are archived (kept)."""
    with transaction.atomic():
        # Lock the member's row: two taps on "Start" are serialised, not raced.
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        challenge = Challenge.objects.filter(pk=challenge_id, is_active=True).first()
        if challenge is None:
            raise ChallengeError(MESSAGE_CHALLENGE_UNAVAILABLE)
        current = UserChallenge.objects.filter(user=user, is_active=True).select_related("challenge").first()
        if current is not None and not current.is_completed:
            if challenge.is_waterdieren or current.challenge_type == Challenge.Category.WATERDIEREN:
                raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN)
            raise ChallengeError(MESSAGE_ALREADY_ACTIVE)
        if current is not None:
            current.is_active = False
            current.save(update_fields=["is_active"])
        try:
            with transaction.atomic():
                return UserChallenge.objects.create(user=user, challenge=challenge, challenge_type=challenge.category)
        except IntegrityError as exc:  # the database's own guard, should the lock ever be bypassed
            raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN) from exc


def dip_register(
    *,
    user: User,
    photo: ProcessedPhoto | None = None,
    request_id: uuid.UUID | None = None,
    conditions: DipConditions | None = None,
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    `conditions` (water temperature, time, spot, note) are optional; wrong ones raise ConditionsError
    before anything is written.
    """
    now = now or timezone.now()
    conditions = conditions or DipConditions()
    conditions.check()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(
            user=user, photo_names=names, request_id=request_id, conditions=conditions, now=now
        )
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    return outcome


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
    now: datetime.datetime,
) -> DipOutcome:
    with transaction.atomic():
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(user=user, is_active=True)
            .first()
        )
        if card is None:
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        earlier = card.dips.filter(request_id=request_id).first() if request_id else None
        if earlier is not None:
            return _replay(card, earlier)
        if card.is_completed:
            raise ChallengeError(MESSAGE_COMPLETED)
        target = card.challenge.target_dips
        count = card.dips.count()
        if count >= target:
            raise ChallengeError(MESSAGE_MAXIMUM.format(target=target))
        today = timezone.localdate(now)
        if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
            raise ChallengeError(MESSAGE_DAILY_LIMIT)

        number = count + 1
        dip = Dip.objects.create(
            user=user,
            user_challenge=card,
            number=number,
            dip_date=today,
            photo=photo_names[0],
            thumbnail=photo_names[1],
            created_at=now,
            request_id=request_id,
            water_temperature=conditions.water_temperature,
            duration_seconds=conditions.duration_seconds,
            spot=conditions.spot,
            note=conditions.note,
        )
        badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
        award = None
        if badge is not None:
            award = UserBadge.objects.create(user=user, badge=badge, user_challenge=card, earned_at=now)
        completed = number >= target
        if completed:
            card.completed_at = now
            card.save(update_fields=["completed_at"])
        return DipOutcome(dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card)


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


def challenge_stop(*, user: User, user_challenge_id: int) -> None:
    """Delete the member's challenge with its dips and badges; photo files go after the commit."""
    with transaction.atomic():
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id, user=user, is_active=True).first()
        if card is None:
            if UserChallenge.objects.filter(pk=user_challenge_id).exclude(user=user).exists():
                raise ChallengePermissionError(MESSAGE_NO_PERMISSION)
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        card.delete()


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
        if latest is None or latest.pk != dip_id:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        if not card.is_active or latest.created_at < now - UNDO_WINDOW:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        latest.delete()
        revoked = _card_recount(card)
        return UndoOutcome(dip_id=dip_id, dip_count=card.dips.count(), user_challenge=card, revoked_badge_ids=revoked)


def _card_recount(card: UserChallenge) -> tuple[int, ...]:
    """Make a card consistent again after dips were removed from it (the caller holds its lock).

    Numbers close up (1..n in their order), badges for milestones the card no longer reaches are taken
    back, and a card below its target is no longer completed. Returns the ids of the revoked badges.
    """
    dips = list(card.dips.order_by("number").only("pk", "number"))
    moved = [dip for place, dip in enumerate(dips, start=1) if dip.number != place]
    if moved:
        # Two steps, so the unique (card, number) never sees two dips on one number halfway.
        offset = len(dips) + max(dip.number for dip in dips)
        for dip in moved:
            dip.number += offset
        Dip.objects.bulk_update(moved, ["number"])
        for dip in moved:
            dip.number = dips.index(dip) + 1
        Dip.objects.bulk_update(moved, ["number"])
    count = len(dips)
    revoked_awards = UserBadge.objects.filter(user_challenge=card, badge__milestone_dips__gt=count)
    revoked = tuple(revoked_awards.values_list("badge_id", flat=True))
    revoked_awards.delete()
    if card.completed_at is not None and count < card.challenge.target_dips:
        card.completed_at = None
        card.save(update_fields=["completed_at"])
    return revoked
