"""The counts that follow the dips: the member's lock, the member's dip count, a card after one of its dips
left (renumbered, badges taken back, completion undone). Every dip and card service takes these."""

from django.db.models import Count, F, Subquery
from django.db.models.functions import Coalesce

from apps.accounts.models import User
from apps.core.page_cache import CLUB, MEMBER_DIPS, pages_changed

from ..models import ClubChallenge, Dip, PhysicalStatus, UserBadge, UserChallenge
from .club_progress import club_progress_refresh

# Beyond any real place on a card (the challenge_target_range check allows at most 1000 dips): renumbering
# parks the dips here first, because the unique (card, number) constraint is checked row by row.
_RENUMBER_PARKING = 10_000


def member_lock(*, user_id: int) -> None:
    """Lock the member's row before their card or dips. Every service here takes the member first, then the
    card, in the order the account deletion takes them (the member's row, then the cascade through cards and
    dips): the two wait for each other instead of deadlocking. A member deleted meanwhile locks nothing, and
    the service finds no card."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()


def user_dip_count_refresh(*, user_id: int) -> tuple[ClubChallenge, ...]:
    """Keep `User.dip_count` true: EVERY service that adds or removes dips calls this after its change, in
    its own transaction (today dip_register, dip_delete, dip_undo, challenge_stop, user_challenge_delete).

    A recount, so a count gone wrong (dips written past the services) heals on the member's next change.
    The member's row is locked first: a parallel change waits here and counts after this one commits,
    seeing its dips (a recount inside one UPDATE would use a snapshot from before the wait).

    The dated club challenges follow the dips here too (club_progress_refresh): returns the ones the member
    newly completed."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()
    # Whatever changed the dips changed the member's dips and what they count for (her pages, and her sections
    # that show them: MEMBER_DIPS), and the club's dips, cards and badges on /admin.
    pages_changed(MEMBER_DIPS, CLUB, user_ids=[user_id])
    User.objects.filter(pk=user_id).update(
        dip_count=Coalesce(
            Subquery(
                Dip.objects.filter(user_id=user_id).order_by().values("user_id").annotate(n=Count("pk")).values("n")
            ),
            0,
        ),
    )
    return club_progress_refresh(user_id=user_id)


def card_recount_after_dip_removal(*, card: UserChallenge, removed_number: int) -> tuple[int, ...]:
    """The card's rules once one of its dips is gone; call it under the card's row lock. Used by the admin's
    dip_delete and the member's dip_undo alike. Returns the ids of the badges taken back.

    The dips are numbered 1..count again, so the next dip_register (number = count + 1) cannot collide;
    a badge is kept only while the count still reaches its milestone, or once its physical badge went out;
    completion holds only at the target.
    """
    later = card.dips.filter(number__gt=removed_number)
    if later.exists():
        later.update(number=F("number") + _RENUMBER_PARKING)
        card.dips.filter(number__gt=_RENUMBER_PARKING).update(number=F("number") - _RENUMBER_PARKING - 1)
    count = card.dips.count()
    # A badge already posted or handed over stays (the member has it); taking it back would put it on the
    # to-send list again once a dip reaches its milestone.
    revoked_awards = UserBadge.objects.filter(
        user_challenge=card, badge__milestone_dips__gt=count, physical_status=PhysicalStatus.TO_SEND
    )
    revoked = tuple(revoked_awards.values_list("badge_id", flat=True))
    revoked_awards.delete()
    if card.completed_at is not None and count < card.challenge.target_dips:
        card.completed_at = None
        card.save(update_fields=["completed_at"])
    return revoked
