"""The /club page for one member: a page of the feed with each item's Brrr!s, in a fixed number of queries."""

from dataclasses import dataclass, field

from django.db.models import Q

from apps.accounts.models import User

from .feed import PAGE_SIZE, Cursor, FeedItem, feed_items
from .models import Brrr, ClubSharing

# Brrr! is for what other members did in the water: their dips and badges. Never on one's own item, and not on a
# plonsafspraak (a plan, not a swim), an event announcement, a club message or a club challenge (issue 34 §6):
# brrr_allowed; the service refuses the rest (ClubRefusal.BRRR_NOT_HERE) and the button shows only where it holds.
BRRR_KINDS = frozenset({"dip", "badge"})


def brrr_allowed(item: FeedItem, *, user_id: int) -> bool:
    return item.kind in BRRR_KINDS and item.owner_id is not None and item.owner_id != user_id


@dataclass
class FeedEntry:
    item: FeedItem
    brrr_allowed: bool = False  # for the member looking: another member's dip or badge
    brrr_count: int = 0
    brrr_given: bool = False  # by the member looking
    brrr_names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClubFeed:
    entries: list[FeedEntry]
    next_cursor: Cursor | None
    sharing: ClubSharing | None  # None: the member was never asked


def club_sharing_for(user: User) -> ClubSharing | None:
    return ClubSharing.objects.filter(user=user).first()


def club_feed_for(user: User, *, cursor: Cursor | None = None, limit: int = PAGE_SIZE) -> ClubFeed:
    items, next_cursor = feed_items(cursor=cursor, limit=limit)
    entries = [FeedEntry(item, brrr_allowed=brrr_allowed(item, user_id=user.pk)) for item in items]
    by_key = {entry.item.key: entry for entry in entries}
    if entries:
        wanted = Q()
        for kind in {item.kind for item in items}:
            wanted |= Q(kind=kind, object_id__in=[item.object_id for item in items if item.kind == kind])
        reactions = (
            Brrr.objects.filter(wanted, user__is_active=True)
            .order_by("created_at", "pk")
            .values_list("kind", "object_id", "user_id", "user__full_name")
        )
        for kind, object_id, user_id, full_name in reactions:
            entry = by_key[f"{kind}:{object_id}"]
            entry.brrr_count += 1
            entry.brrr_given = entry.brrr_given or user_id == user.pk
            entry.brrr_names.append(User(full_name=full_name).display_name)
    return ClubFeed(entries=entries, next_cursor=next_cursor, sharing=club_sharing_for(user))
