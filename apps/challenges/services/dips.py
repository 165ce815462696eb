"""A dip registered: `dip_register` is the only way one is made (on the stamp card, without a card for a club
challenge, or confirmed as part of a swim already stamped), and a resend gets its first answer again.

Whether a dip may count, and the check before the photo: dip_rules.py. Changing a dip afterwards (delete,
details, undo): dip_changes.py.
"""

import datetime
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import FEED, MEMBER, pages_changed

from ..conditions import DipConditions
from ..models import Badge, ClubChallenge, Dip, DipBuddy, UserBadge, UserChallenge
from ..photos import ProcessedPhoto
from ..refusals import DipRefusal
from .dip_rules import (
    MESSAGE_NO_ACTIVE,
    TAP_CLOCK_SKEW,
    card_refusal,
    club_challenge_running_for,
    dip_moment,
    free_refusal,
)
from .errors import ChallengeError
from .photo_files import _photo_delete, _photo_save
from .recount import member_lock, user_dip_count_refresh
from .same_swim import buddies_not_yet_named, dip_complete, same_swim_dip

# A mis-tap can be taken back for this long; after that a dip is part of the member's history.
UNDO_WINDOW_MINUTES = 10
UNDO_WINDOW = datetime.timedelta(minutes=UNDO_WINDOW_MINUTES)

MESSAGE_DIP_UNKNOWN = "Deze plons bestaat niet (meer)."
MESSAGE_UNDO_TOO_LATE = (
    f"Deze plons kan niet meer ongedaan worden gemaakt. Dat kan alleen bij je laatste plons, "
    f"tot {UNDO_WINDOW_MINUTES} minuten na het registreren."
)
MESSAGE_OTHER_CARD = "Deze plons hoort bij een challenge die niet meer actief is. Hij is niet geteld."
MESSAGE_BUDDY_BEFORE_START = "Deze plons was voordat je challenge begon. Hij kan niet op je kaart."


@dataclass(frozen=True)
class DipOutcome:
    dip: Dip
    dip_count: int
    badge: Badge | None
    award: UserBadge | None
    completed: bool
    # None for a dip without a stamp card (it counts for the member's club challenges only).
    user_challenge: UserChallenge | None
    replayed: bool = False
    # True when the dip was there already (the same swim, see same_swim.py): nothing was stamped, `dip` is it.
    confirmed: bool = False
    # The club challenges this dip completed for the member (their badge and celebration).
    club_completed: tuple[ClubChallenge, ...] = ()


def dip_register(
    *,
    user: User,
    photo: ProcessedPhoto | None = None,
    request_id: uuid.UUID | None = None,
    conditions: DipConditions | None = None,
    tapped_at: datetime.datetime | None = None,
    user_challenge_id: int | None = None,
    now: datetime.datetime | None = None,
    share_photo: bool = False,
    buddy_ids: Sequence[int] = (),
    trusted_moment: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    `conditions` (water temperature, time, spot, note) are optional; wrong ones raise ConditionsError
    before anything is written.
    `buddy_ids` are the clubmates the member names ("Met wie?"): each becomes a DipBuddy request in the dip's
    transaction (see `_buddies_tag`). `trusted_moment` is a moment the server vouches for (a buddy's dip put
    on this member's card, apps.together): it counts as is, unless it lies before the card started.
    A dip sent later from the phone (tapped without signal) brings `tapped_at`, the moment of the tap,
    and `user_challenge_id`, the card it was tapped on: see `dip_moment`, and another card refuses it.
    `share_photo` is "Deel deze foto met de club" (the club feed, apps/club). One swim, one stamp: a dip of
    the same swim already there is confirmed instead (`outcome.confirmed`; the rule: same_swim.py).
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
            share_photo=share_photo,
            buddy_ids=buddy_ids,
            trusted_moment=trusted_moment,
        )
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    elif outcome.confirmed and outcome.dip.photo.name != names[0]:
        _photo_delete(names)
    return outcome


def _dip_register_locked(
    *,
    user: User,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    conditions: DipConditions,
    user_challenge_id: int | None,
    tapped_at: datetime.datetime | None,
    now: datetime.datetime,
    share_photo: bool = False,
    buddy_ids: Sequence[int] = (),
    trusted_moment: datetime.datetime | None = None,
) -> DipOutcome:
    """One tap, one Dip row: on the active stamp card when it takes the dip, else without a card when the
    member takes part in a club challenge running on the dip's day. Either way it counts for every club
    challenge the member joined (derived from the dips, see ClubChallenge)."""
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(user=user, is_active=True)
            .first()
        )
        if user_challenge_id is not None and (card is None or card.pk != user_challenge_id):
            raise ChallengeError(MESSAGE_OTHER_CARD, code=DipRefusal.OTHER_CARD)
        if request_id:
            if card is not None and (earlier := card.dips.filter(request_id=request_id).first()) is not None:
                return _replay(card, earlier)
            earlier = Dip.objects.filter(user=user, user_challenge=None, request_id=request_id).first()
            if earlier is not None:
                return _replay_without_card(earlier)
        # One swim, one stamp (same_swim.py): a dip of this swim already there is confirmed, not stamped again.
        swum = trusted_moment or dip_moment(tapped_at=tapped_at, now=now)
        if (earlier := same_swim_dip(user_id=user.pk, moment=swum)) is not None:
            dip_complete(earlier, photo_names=photo_names, conditions=conditions, share_photo=share_photo)
            _buddies_tag(dip=earlier, buddy_ids=buddies_not_yet_named(earlier, buddy_ids))
            pages_changed(MEMBER, FEED, user_ids=[user.pk])
            return _confirmed(card, earlier)
        server_today = timezone.localdate(now)
        if card is not None:
            # Judged under the card's lock, against its start: a claimed tap time cannot reach days before it.
            moment = dip_moment(tapped_at=tapped_at, now=now, card_started_at=card.started_at)
            if trusted_moment is not None:
                if trusted_moment < card.started_at - TAP_CLOCK_SKEW:
                    raise ChallengeError(MESSAGE_BUDDY_BEFORE_START, code=DipRefusal.BUDDY_BEFORE_CARD_START)
                moment = max(trusted_moment, card.started_at)
            today = timezone.localdate(moment)
            count = card.dips.count()
            refusal = card_refusal(card, count=count, today=today, server_today=server_today)
            if refusal is None:
                return _dip_on_card(
                    user=user, card=card, number=count + 1, moment=moment, photo_names=photo_names,
                    request_id=request_id, conditions=conditions, share_photo=share_photo,
                    buddy_ids=buddy_ids,
                )  # fmt: skip
            # A card that is done or full still lets a dip count for the club challenges the member joined.
            if refusal.code not in (DipRefusal.CARD_DONE, DipRefusal.CARD_FULL):
                raise refusal
            if user_challenge_id is not None or not club_challenge_running_for(user_id=user.pk, day=today):
                raise refusal
        else:
            moment = trusted_moment or dip_moment(tapped_at=tapped_at, now=now)
            today = timezone.localdate(moment)
            if not club_challenge_running_for(user_id=user.pk, day=today):
                raise ChallengeError(MESSAGE_NO_ACTIVE, code=DipRefusal.NO_CARD)
        refusal = free_refusal(user_id=user.pk, today=today, server_today=server_today)
        if refusal is not None:
            raise refusal
        number = Dip.objects.filter(user=user, user_challenge=None).count() + 1
        dip = _dip_create(
            user=user, card=None, number=number, moment=moment, photo_names=photo_names,
            request_id=request_id, conditions=conditions, share_photo=share_photo, buddy_ids=buddy_ids,
        )  # fmt: skip
        club_completed = user_dip_count_refresh(user_id=user.pk)
        return DipOutcome(
            dip=dip, dip_count=number, badge=None, award=None, completed=False, user_challenge=None,
            club_completed=club_completed,
        )  # fmt: skip


def _dip_create(
    *,
    user: User,
    card: UserChallenge | None,
    number: int,
    moment: datetime.datetime,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    conditions: DipConditions,
    share_photo: bool,
    buddy_ids: Sequence[int],
) -> Dip:
    dip = Dip.objects.create(
        user=user,
        user_challenge=card,
        number=number,
        dip_date=timezone.localdate(moment),
        photo=photo_names[0],
        thumbnail=photo_names[1],
        created_at=moment,
        request_id=request_id,
        water_temperature=conditions.water_temperature,
        duration_seconds=conditions.duration_seconds,
        spot=conditions.spot,
        note=conditions.note,
        share_photo=share_photo,
    )
    _buddies_tag(dip=dip, buddy_ids=buddy_ids)
    return dip


def _dip_on_card(
    *,
    user: User,
    card: UserChallenge,
    number: int,
    moment: datetime.datetime,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    conditions: DipConditions,
    share_photo: bool,
    buddy_ids: Sequence[int],
) -> DipOutcome:
    dip = _dip_create(
        user=user, card=card, number=number, moment=moment, photo_names=photo_names,
        request_id=request_id, conditions=conditions, share_photo=share_photo, buddy_ids=buddy_ids,
    )  # fmt: skip
    club_completed = user_dip_count_refresh(user_id=user.pk)
    badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
    award = None
    if badge is not None:
        # A physical badge posted before its dip was undone kept its award: the member has it already.
        award = UserBadge.objects.filter(user_challenge=card, badge=badge).first() or UserBadge.objects.create(
            user=user, badge=badge, user_challenge=card, earned_at=moment
        )
    completed = number >= card.challenge.target_dips
    if completed:
        card.completed_at = moment
        card.save(update_fields=["completed_at"])
    return DipOutcome(
        dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card,
        club_completed=club_completed,
    )  # fmt: skip


def _buddies_tag(*, dip: Dip, buddy_ids: Sequence[int]) -> None:
    """The clubmates named on a new dip: active members who allow tagging, never the member. An id that is
    none of those (a clubmate who just turned tagging off) is left out quietly: the dip itself counts."""
    wanted = {buddy_id for buddy_id in buddy_ids if buddy_id != dip.user_id}
    if not wanted:
        return
    found = list(
        User.objects.filter(pk__in=wanted, is_active=True, tagging_allowed=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    # One by one (not bulk_create): the post_save signal queues each buddy's request (apps.together.signals).
    for buddy_id in found:
        DipBuddy.objects.create(dip=dip, buddy_id=buddy_id, created_at=dip.created_at)
    pages_changed(MEMBER, user_ids=found)


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


def _confirmed(card: UserChallenge | None, dip: Dip) -> DipOutcome:
    dips = card.dips if card is not None else Dip.objects.filter(user_id=dip.user_id, user_challenge=None)
    count = dips.count()
    return DipOutcome(
        dip=dip, dip_count=count, badge=None, award=None, completed=False, user_challenge=card, confirmed=True
    )


def _replay_without_card(dip: Dip) -> DipOutcome:
    return DipOutcome(
        dip=dip, dip_count=dip.number, badge=None, award=None, completed=False, user_challenge=None, replayed=True
    )
