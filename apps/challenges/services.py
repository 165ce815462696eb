"""Challenge rules. `dip_register` is the only way a dip is made."""

import datetime
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Subquery
from django.db.models.functions import Coalesce
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
MESSAGE_DIP_UNKNOWN = "Deze plons bestaat niet (meer)."
MESSAGE_CARD_UNKNOWN = "Deze challenge bestaat niet (meer)."

# Beyond any real place on a card (the challenge_target_range check allows at most 1000 dips): renumbering
# parks the dips here first, because the unique (card, number) constraint is checked row by row.
_RENUMBER_PARKING = 10_000
MESSAGE_COMPLETED_KEPT = (
    "Een voltooide challenge blijft bewaard, met je badges en foto's. Start gerust een nieuwe op je dashboard."
)


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


class ChallengeCompletedError(ChallengeError):
    """Stopping a finished card: refused, the card is kept."""


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
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    """
    now = now or timezone.now()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(user=user, photo_names=names, request_id=request_id, now=now)
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
    *, user: User, photo_names: tuple[str, str], request_id: uuid.UUID | None, now: datetime.datetime
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
        target = card.challenge.target_dips
        count = card.dips.count()
        today = timezone.localdate(now)
        refusal = _card_refusal(card, count=count, today=today)
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
            created_at=now,
            request_id=request_id,
        )
        user_dip_count_refresh(user_id=user.pk)
        badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
        award = None
        if badge is not None:
            award = UserBadge.objects.create(user=user, badge=badge, user_challenge=card, earned_at=now)
        completed = number >= target
        if completed:
            card.completed_at = now
            card.save(update_fields=["completed_at"])
        return DipOutcome(dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card)


def _card_refusal(card: UserChallenge, *, count: int, today: datetime.date) -> str | None:
    """Why this card takes no dip now (Dutch), or None."""
    if card.is_completed:
        return MESSAGE_COMPLETED
    if count >= card.challenge.target_dips:
        return MESSAGE_MAXIMUM.format(target=card.challenge.target_dips)
    if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
        return MESSAGE_DAILY_LIMIT
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


def challenge_stop(*, user: User, user_challenge_id: int) -> None:
    """Delete the member's challenge with its dips and badges; photo files go after the commit."""
    with transaction.atomic():
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id, user=user, is_active=True).first()
        if card is None:
            if UserChallenge.objects.filter(pk=user_challenge_id).exclude(user=user).exists():
                raise ChallengePermissionError(MESSAGE_NO_PERMISSION)
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        if card.is_completed:
            # A finished card is the member's trophy: stopping would delete its badges and photos.
            raise ChallengeCompletedError(MESSAGE_COMPLETED_KEPT)
        _card_delete(card)


def dip_delete(*, dip_id: int) -> UserChallenge:
    """Delete one dip and keep its card whole: the later dips close the gap, badges beyond the new count
    go, and a completed card below its target is open again. The photo files go after the commit (the
    post_delete signal of Dip). Returns the card as it is now. Raises ChallengeError when the dip is gone.
    """
    with transaction.atomic():
        card_id = Dip.objects.filter(pk=dip_id).values_list("user_challenge_id", flat=True).first()
        if card_id is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        # The same lock as dip_register: a dip registered meanwhile waits until the card is whole again.
        card = UserChallenge.objects.select_for_update(of=("self",)).select_related("challenge").get(pk=card_id)
        dip = card.dips.filter(pk=dip_id).first()  # read again under the lock: a parallel delete may have won
        if dip is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        dip.delete()
        user_dip_count_refresh(user_id=dip.user_id)
        _card_recount_after_dip_removal(card=card, removed_number=dip.number)
    return card


def user_dip_count_refresh(*, user_id: int) -> None:
    """Keep `User.dip_count` true: EVERY service that adds or removes dips calls this after its change, in
    its own transaction (today dip_register, dip_delete, challenge_stop, user_challenge_delete).

    A recount, so a count gone wrong (dips written past the services) heals on the member's next change.
    The member's row is locked first: a parallel change waits here and counts after this one commits,
    seeing its dips (a recount inside one UPDATE would use a snapshot from before the wait)."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()
    User.objects.filter(pk=user_id).update(
        dip_count=Coalesce(
            Subquery(
                Dip.objects.filter(user_id=user_id).order_by().values("user_id").annotate(n=Count("pk")).values("n")
            ),
            0,
        )
    )


def _card_delete(card: UserChallenge) -> None:
    """A card goes with its dips (cascade), so they leave the member's count; call it under the card's lock."""
    card.delete()
    user_dip_count_refresh(user_id=card.user_id)


def _card_recount_after_dip_removal(*, card: UserChallenge, removed_number: int) -> None:
    """The card's rules once one of its dips is gone; call it under the card's row lock.

    The dips are numbered 1..count again, so the next dip_register (number = count + 1) cannot collide;
    a badge is kept only while the count still reaches its milestone; completion holds only at the target.
    """
    later = card.dips.filter(number__gt=removed_number)
    if later.exists():
        later.update(number=F("number") + _RENUMBER_PARKING)
        card.dips.filter(number__gt=_RENUMBER_PARKING).update(number=F("number") - _RENUMBER_PARKING - 1)
    count = card.dips.count()
    UserBadge.objects.filter(user_challenge=card, badge__milestone_dips__gt=count).delete()
    if card.completed_at is not None and count < card.challenge.target_dips:
        card.completed_at = None
        card.save(update_fields=["completed_at"])


def user_challenge_delete(*, user_challenge_id: int) -> None:
    """An admin removes a member's card with its dips and badges (challenge_stop without the owner check);
    the photo files go after the commit."""
    with transaction.atomic():
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id).first()
        if card is None:
            raise ChallengeError(MESSAGE_CARD_UNKNOWN)
        _card_delete(card)
