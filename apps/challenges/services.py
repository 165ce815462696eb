"""Challenge rules. `dip_register` is the only way a dip is made."""

import datetime
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User

from .models import Badge, Challenge, Dip, UserBadge, UserChallenge, photo_storage
from .photos import ProcessedPhoto

MESSAGE_ALREADY_WATERDIEREN = "Je hebt al een actieve Waterdieren Stempelkaart!"
MESSAGE_ALREADY_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."
MESSAGE_CHALLENGE_UNAVAILABLE = "Deze challenge is niet beschikbaar."
MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."
MESSAGE_OTHER_CARD = "Deze plons hoort bij een challenge die niet meer actief is. Hij is niet geteld."

# A dip tapped without signal counts on the moment of the tap when it arrives within this time.
TAP_TIME_MAX_AGE = datetime.timedelta(hours=72)


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


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
    tapped_at: datetime.datetime | None = None,
    user_challenge_id: int | None = None,
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    A dip sent later from the phone (tapped without signal) brings `tapped_at`, the moment of the tap,
    and `user_challenge_id`, the card it was tapped on: see `dip_moment`, and another card refuses it.
    """
    now = now or timezone.now()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(
            user=user,
            photo_names=names,
            request_id=request_id,
            user_challenge_id=user_challenge_id,
            now=dip_moment(tapped_at=tapped_at, now=now),
        )
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    return outcome


def dip_moment(*, tapped_at: datetime.datetime | None, now: datetime.datetime) -> datetime.datetime:
    """When a dip counts: the moment of the tap when it is in the past and at most 72 hours old, else now.

    The phone's clock is trusted only that far: a tap "from the future" or from long ago gets the server's time.
    """
    if tapped_at is not None and now - TAP_TIME_MAX_AGE <= tapped_at <= now:
        return tapped_at
    return now


def _photo_delete(names: tuple[str, str]) -> None:
    for name in names:
        if name:
            photo_storage().delete(name)


def _dip_register_locked(
    *,
    user: User,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    user_challenge_id: int | None,
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
            raise ChallengeError(MESSAGE_NO_ACTIVE if user_challenge_id is None else MESSAGE_OTHER_CARD)
        if user_challenge_id is not None and card.pk != user_challenge_id:
            raise ChallengeError(MESSAGE_OTHER_CARD)
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
