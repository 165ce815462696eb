"""The club feed's writes: the member's sharing choice, Brrr!, an admin hiding an item."""

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.errors import DomainError, NotFoundError
from apps.core.page_cache import FEED, MEMBER, pages_changed
from apps.notifications.models import Mail, Notice

from .feed import SOURCES, FeedItem, feed_item, feed_item_shareable
from .models import Brrr, ClubSharing, HiddenItem
from .notices import brrr_notice, brrr_notice_key
from .refusals import ClubRefusal
from .selectors import brrr_allowed

MESSAGE_ITEM_GONE = "Dit bericht staat niet (meer) in de club."
MESSAGE_NOT_ADMIN = "Alleen admins kunnen iets verbergen."
MESSAGE_BRRR_NOT_HERE = "Een Brrr! geef je aan de plonsen en badges van anderen."


class ClubError(DomainError):
    status = 409


class ClubItemNotFoundError(ClubError, NotFoundError):
    status = 404


class ClubPermissionError(ClubError):
    status = 403


def club_sharing_set(*, user: User, share_dips: bool) -> ClubSharing:
    """ "Deel mijn plonsen met de club", yes or no. Off again, the member's dips and badges leave the feed."""
    with transaction.atomic():
        sharing, _created = ClubSharing.objects.select_for_update().get_or_create(
            user=user, defaults={"share_dips": share_dips}
        )
        sharing.share_dips = share_dips
        sharing.chosen_at = timezone.now()
        sharing.save(update_fields=["share_dips", "chosen_at"])
        pages_changed(MEMBER, FEED, user_ids=[user.pk])  # /account and /club show the choice; the feed the dips
    return sharing


def _shown_item(kind: str, object_id: int) -> FeedItem:
    item = feed_item(kind=kind, object_id=object_id)
    if item is None:
        raise ClubItemNotFoundError(MESSAGE_ITEM_GONE, code=ClubRefusal.ITEM_GONE)
    return item


@dataclass(frozen=True)
class BrrrState:
    given: bool
    count: int


def brrr_set(*, user: User, kind: str, object_id: int, given: bool) -> BrrrState:
    """Give (`given`) or take back the member's Brrr! on a feed item. Idempotent: the same request twice, or
    two at once, ends in the same state (the unique constraint decides, never a second row or an error).
    Only on an item the feed shows now: not on one unshared or hidden meanwhile (ClubItemNotFoundError); given
    only to another member's dip or badge (selectors.brrr_allowed), taken back from anything."""
    with transaction.atomic():
        item = _shown_item(kind, object_id)
        if given and not brrr_allowed(item, user_id=user.pk):
            raise ClubError(MESSAGE_BRRR_NOT_HERE, code=ClubRefusal.BRRR_NOT_HERE)
        if given:
            Brrr.objects.bulk_create(
                [Brrr(user=user, kind=kind, object_id=object_id, owner_id=item.owner_id)], ignore_conflicts=True
            )
        else:
            Brrr.objects.filter(user=user, kind=kind, object_id=object_id).delete()
        pages_changed(FEED)
        count = Brrr.objects.filter(kind=kind, object_id=object_id).count()
    return BrrrState(given=given, count=count)


def item_hide(*, actor: User, kind: str, object_id: int, meta: AuditMeta | None = None) -> None:
    """An admin takes an item out of the feed, for everyone. Hiding it twice is hiding it once."""
    if not actor.is_admin:
        raise ClubPermissionError(MESSAGE_NOT_ADMIN, code=ClubRefusal.NOT_ADMIN)
    with transaction.atomic():
        # Hidden already (by another admin a moment ago, too) is fine: only an item that cannot show is refused.
        if not feed_item_shareable(kind=kind, object_id=object_id):
            raise ClubItemNotFoundError(MESSAGE_ITEM_GONE, code=ClubRefusal.ITEM_GONE)
        HiddenItem.objects.bulk_create(
            [HiddenItem(kind=kind, object_id=object_id, hidden_by=actor)], ignore_conflicts=True
        )
        audit_record(
            meta=meta or AuditMeta(actor_id=actor.pk, actor_label=actor.email),
            action=AuditAction.FEED_ITEM_HIDDEN,
            target_type=kind,
            target_id=object_id,
        )
        pages_changed(FEED)


def brrr_notices_send(*, now: datetime.datetime | None = None) -> int:
    """The batched notice: every member who got a Brrr! from someone else since their last notice hears it
    once (apps/club/notices.py), at most once a day; Brrr!s that arrive after today's notice wait for
    tomorrow's. Run by the cron command `send_brrr_notices`: twice, or twice at once, tells nobody twice (the
    rows are locked and skipped by a parallel run; the day's mail key is unique). Returns the notices sent."""
    now = now or timezone.now()
    day = timezone.localdate(now)
    waiting = Brrr.objects.filter(noticed_at__isnull=True, owner__isnull=False).exclude(owner_id=F("user_id"))
    owner_ids = sorted(set(waiting.values_list("owner_id", flat=True)))
    sent = 0
    for owner in User.objects.filter(pk__in=owner_ids, is_active=True).order_by("pk"):
        with transaction.atomic():
            rows = list(waiting.filter(owner=owner).select_for_update(skip_locked=True).values_list("pk", flat=True))
            key = brrr_notice_key(owner_id=owner.pk, day=day)
            if (
                not rows
                or Notice.objects.filter(dedupe_key=key).exists()
                or Mail.objects.filter(dedupe_key=key).exists()
            ):
                continue
            # Also when they chose Uit: then these are done too.
            brrr_notice(owner=owner, day=day, count=len(rows), now=now)
            Brrr.objects.filter(pk__in=rows).update(noticed_at=now)
            sent += 1
    return sent


def club_orphans_remove() -> int:
    """Brrr!s and hidden marks of items whose row is gone (a dip undone or deleted, a badge taken back, an
    event deleted) go too: one anti-join per kind, run with the notices (send_brrr_notices), so deleting a
    card with hundreds of dips costs nothing extra here. Until then they point at nothing and show nowhere.
    Returns the rows removed."""
    removed = 0
    for model in (Brrr, HiddenItem):
        for kind, source in SOURCES.items():
            gone = model.objects.filter(kind=kind).exclude(object_id__in=source.rows().model.objects.values("pk"))
            removed += gone.delete()[0]
        removed += model.objects.exclude(kind__in=list(SOURCES)).delete()[0]
    return removed
