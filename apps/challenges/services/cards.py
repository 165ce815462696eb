"""A member's stamp card: started, stopped by the member, deleted by an admin."""

from django.db import IntegrityError, transaction

from apps.accounts.models import User
from apps.core.page_cache import CLUB, MEMBER, pages_changed

from ..models import Challenge, UserChallenge
from ..refusals import DipRefusal
from .dip_rules import MESSAGE_NO_ACTIVE
from .errors import ChallengeCompletedError, ChallengeError, ChallengePermissionError
from .recount import member_lock, user_dip_count_refresh

MESSAGE_ALREADY_WATERDIEREN = "Je hebt al een actieve Waterdieren Stempelkaart!"
MESSAGE_ALREADY_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."
MESSAGE_CHALLENGE_UNAVAILABLE = "Deze challenge is niet beschikbaar."
MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."
MESSAGE_CARD_UNKNOWN = "Deze challenge bestaat niet (meer)."
MESSAGE_COMPLETED_KEPT = (
    "Een voltooide challenge blijft bewaard, met je badges en foto's. Start gerust een nieuwe op je dashboard."
)


def challenge_start(*, user: User, challenge_id: int) -> UserChallenge:
    """Start a challenge. One unfinished challenge at a time; finished ones are archived (kept)."""
    with transaction.atomic():
        # Lock the member's row: two taps on "Start" are serialised, not raced.
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        challenge = Challenge.objects.filter(pk=challenge_id, is_active=True).first()
        if challenge is None:
            raise ChallengeError(MESSAGE_CHALLENGE_UNAVAILABLE, code=DipRefusal.CHALLENGE_UNAVAILABLE)
        current = UserChallenge.objects.filter(user=user, is_active=True).select_related("challenge").first()
        if current is not None and not current.is_completed:
            if challenge.is_waterdieren or current.challenge_type == Challenge.Category.WATERDIEREN:
                raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN, code=DipRefusal.ALREADY_WATERDIEREN)
            raise ChallengeError(MESSAGE_ALREADY_ACTIVE, code=DipRefusal.ALREADY_ACTIVE)
        if current is not None:
            current.is_active = False
            current.save(update_fields=["is_active"])
        pages_changed(MEMBER, CLUB, user_ids=[user.pk])  # their cards; the active cards on /admin
        try:
            with transaction.atomic():
                return UserChallenge.objects.create(user=user, challenge=challenge, challenge_type=challenge.category)
        except IntegrityError as exc:  # the database's own guard, should the lock ever be bypassed
            raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN, code=DipRefusal.ALREADY_WATERDIEREN) from exc


def challenge_stop(*, user: User, user_challenge_id: int) -> None:
    """Delete the member's challenge with its dips and badges; photo files go after the commit."""
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id, user=user, is_active=True).first()
        if card is None:
            if UserChallenge.objects.filter(pk=user_challenge_id).exclude(user=user).exists():
                raise ChallengePermissionError(MESSAGE_NO_PERMISSION, code=DipRefusal.NOT_YOURS)
            raise ChallengeError(MESSAGE_NO_ACTIVE, code=DipRefusal.NO_CARD)
        if card.is_completed:
            # A finished card is the member's trophy: stopping would delete its badges and photos.
            raise ChallengeCompletedError(MESSAGE_COMPLETED_KEPT, code=DipRefusal.COMPLETED_KEPT)
        _card_delete(card)


def _card_delete(card: UserChallenge) -> None:
    """A card goes with its dips (cascade), so they leave the member's count; call it under the card's lock."""
    card.delete()
    user_dip_count_refresh(user_id=card.user_id)


def user_challenge_delete(*, user_challenge_id: int) -> None:
    """An admin removes a member's card with its dips and badges (challenge_stop without the owner check);
    the photo files go after the commit."""
    with transaction.atomic():
        user_id = UserChallenge.objects.filter(pk=user_challenge_id).values_list("user_id", flat=True).first()
        if user_id is not None:
            member_lock(user_id=user_id)
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id).first()
        if card is None:
            raise ChallengeError(MESSAGE_CARD_UNKNOWN, code=DipRefusal.CARD_UNKNOWN)
        _card_delete(card)
