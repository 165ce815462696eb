"""Changing a dip afterwards: delete it (the Django admin), edit its details and photo, or undo a mis-tap
within UNDO_WINDOW. Each keeps the card whole (recount) under the member's lock."""

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import FEED, MEMBER, pages_changed

from ..conditions import DipConditions
from ..models import Dip, UserChallenge
from ..photos import ProcessedPhoto
from ..refusals import DipRefusal
from .dips import (
    MESSAGE_DIP_UNKNOWN,
    MESSAGE_UNDO_TOO_LATE,
    UNDO_WINDOW,
    _photo_delete,
    _photo_save,
)
from .errors import ChallengeError, DipNotFoundError
from .recount import card_recount_after_dip_removal, member_lock, user_dip_count_refresh


def dip_delete(*, dip_id: int) -> UserChallenge | None:
    """Delete one dip and keep its card whole: the later dips close the gap, badges beyond the new count
    go, and a completed card below its target is open again; the club challenges are recounted (through
    user_dip_count_refresh). The photo files go after the commit (the post_delete signal of Dip). Returns
    the card as it is now (None for a dip without a card). Raises ChallengeError when the dip is gone.
    """
    with transaction.atomic():
        found = Dip.objects.filter(pk=dip_id).values_list("user_challenge_id", "user_id").first()
        if found is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
        card_id, user_id = found
        member_lock(user_id=user_id)
        if card_id is None:
            dip = Dip.objects.filter(pk=dip_id, user_challenge=None).first()
            if dip is None:
                raise ChallengeError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
            dip.delete()
            user_dip_count_refresh(user_id=user_id)
            return None
        # The same lock as dip_register: a dip registered meanwhile waits until the card is whole again.
        card = (
            UserChallenge.objects.select_for_update(of=("self",)).select_related("challenge").filter(pk=card_id).first()
        )
        # Read again under the lock: a parallel delete (of the dip, or of the whole account) may have won.
        dip = card.dips.filter(pk=dip_id).first() if card is not None else None
        if card is None or dip is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
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
                raise DipNotFoundError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
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
            pages_changed(MEMBER, FEED, user_ids=[user.pk])  # the club feed shows a shared dip's details
    except BaseException:
        _photo_delete(names)
        raise
    return dip


@dataclass(frozen=True)
class PhotoAdded:
    dip: Dip
    # False: the dip had a photo already (a resend whose answer was lost, or one the member set meanwhile): kept.
    added: bool


def dip_photo_add(*, user: User, dip_id: int, photo: ProcessedPhoto, share: bool) -> PhotoAdded:
    """The photo of a dip, sent after the dip itself: the stamp card registers the tap at once and sends the
    photo when the phone has shrunk it (or later, from the phone's queue).

    Set only while the dip has no photo, with the member's "Deel deze foto met de club" (`share`); a dip with
    a photo keeps it (like a second tap of the same swim, same_swim.dip_complete), so sending the same photo
    twice changes nothing. The details are left as they are. Someone else's dip, or one undone meanwhile, is
    answered like a missing one (DipNotFoundError). The files are written first (the pipeline's, in the
    photo storage) and removed again when the photo is not taken or the change fails.
    """
    names = _photo_save(user=user, photo=photo, now=timezone.now())
    added = False
    try:
        with transaction.atomic():
            member_lock(user_id=user.pk)
            dip = Dip.objects.select_for_update().filter(pk=dip_id, user=user).first()
            if dip is None:
                raise DipNotFoundError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
            if not dip.photo:
                dip.photo, dip.thumbnail, dip.share_photo = names[0], names[1], share
                dip.save(update_fields=["photo", "thumbnail", "share_photo"])
                pages_changed(MEMBER, FEED, user_ids=[user.pk])  # her card; the feed when shared
                added = True
    except BaseException:
        _photo_delete(names)
        raise
    if not added:
        _photo_delete(names)
    return PhotoAdded(dip=dip, added=added)


@dataclass(frozen=True)
class UndoOutcome:
    dip_id: int
    dip_count: int
    user_challenge: UserChallenge | None  # None: the dip had no card (club challenges only)
    revoked_badge_ids: tuple[int, ...]


def dip_undo(*, user: User, dip_id: int, now: datetime.datetime | None = None) -> UndoOutcome:
    """Take back a mis-tap: the member's latest dip on their active card (or their latest dip without a
    card), within UNDO_WINDOW.

    Under the card's lock, so a dip registered at the same moment cannot slip in between. The badge
    and the completion the dip brought are taken back in the same transaction, the club challenges'
    completion too; its photo files go after the commit (the post_delete signal of Dip).
    """
    now = now or timezone.now()
    with transaction.atomic():
        member_lock(user_id=user.pk)
        found = Dip.objects.filter(pk=dip_id, user=user).values_list("user_challenge_id", flat=True)
        if not found:
            raise DipNotFoundError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
        card_id = found[0]
        if card_id is None:
            latest = Dip.objects.filter(user=user, user_challenge=None).order_by("-created_at", "-pk").first()
            if latest is None or latest.pk != dip_id or latest.created_at < now - UNDO_WINDOW:
                raise ChallengeError(MESSAGE_UNDO_TOO_LATE, code=DipRefusal.UNDO_TOO_LATE)
            latest.delete()
            user_dip_count_refresh(user_id=user.pk)
            count = Dip.objects.filter(user=user, user_challenge=None).count()
            return UndoOutcome(dip_id=dip_id, dip_count=count, user_challenge=None, revoked_badge_ids=())
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(pk=card_id, user=user)
            .first()
        )
        latest = card.dips.order_by("-number").first() if card is not None else None
        if card is None or latest is None or latest.pk != dip_id:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE, code=DipRefusal.UNDO_TOO_LATE)
        if not card.is_active or latest.created_at < now - UNDO_WINDOW:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE, code=DipRefusal.UNDO_TOO_LATE)
        latest.delete()
        revoked = card_recount_after_dip_removal(card=card, removed_number=latest.number)
        user_dip_count_refresh(user_id=user.pk)
        return UndoOutcome(dip_id=dip_id, dip_count=card.dips.count(), user_challenge=card, revoked_badge_ids=revoked)
