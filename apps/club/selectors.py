"""The /club page for one member: a page of the feed with each item's Brrr!s, in a fixed number of queries."""

import hashlib
from dataclasses import dataclass, field

from apps.accounts.models import User
from apps.core.prepared import PreparedQuery

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

    @property
    def version(self) -> str:
        """Everything the item's section on /club shows besides the member looking (her role is her own
        scope), as a short digest: the item (its text, moment, photo, link), whether she may give a Brrr!, the
        Brrr!s' count and names and her own. The section is kept by this, so any change to what it shows (a
        Brrr!, an edited dip, a renamed member, one whose account is gone) is a new key."""
        shown = (self.item, self.brrr_allowed, self.brrr_count, self.brrr_given, tuple(self.brrr_names))
        return hashlib.blake2b(repr(shown).encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class ClubFeed:
    entries: list[FeedEntry]
    next_cursor: Cursor | None


def club_sharing_for(user: User) -> ClubSharing | None:
    """The member's choice; None: she was never asked."""
    return ClubSharing.objects.filter(user=user).first()


def _brrrs(**ids: int):
    return (
        Brrr.objects.filter(object_id__in=ids.values(), user__is_active=True)
        .order_by("created_at", "pk")
        .values_list("kind", "object_id", "user_id", "user__full_name")
    )


_SLOTS = [f"id{number}" for number in range(PAGE_SIZE)]
# The Brrr!s of a page's items: the same query on every render, compiled once (apps/core/prepared.py). It asks
# by id alone (a page has at most PAGE_SIZE ids; the unused places ask for 0, no row's id), so an item of another
# kind with the same id brings its Brrr!s too: they are left out by their key.
_PAGE_BRRRS = PreparedQuery(lambda **ids: _brrrs(**ids), **dict.fromkeys(_SLOTS, int))


def _brrrs_of(items: list[FeedItem]) -> list:
    if not items:
        return []
    ids = sorted({item.object_id for item in items})
    if len(ids) > PAGE_SIZE:
        return list(_brrrs(**{f"id{number}": object_id for number, object_id in enumerate(ids)}))
    return _PAGE_BRRRS.rows(**dict(zip(_SLOTS, ids + [0] * (PAGE_SIZE - len(ids)), strict=True)))


def club_feed_for(user: User, *, cursor: Cursor | None = None, limit: int = PAGE_SIZE) -> ClubFeed:
    items, next_cursor = feed_items(cursor=cursor, limit=limit)
    entries = [FeedEntry(item, brrr_allowed=brrr_allowed(item, user_id=user.pk)) for item in items]
    by_key = {entry.item.key: entry for entry in entries}
    for kind, object_id, user_id, full_name in _brrrs_of(items):
        entry = by_key.get(f"{kind}:{object_id}")
        if entry is None:  # another kind's item with the same id
            continue
        entry.brrr_count += 1
        entry.brrr_given = entry.brrr_given or user_id == user.pk
        entry.brrr_names.append(User(full_name=full_name).display_name)
    return ClubFeed(entries=entries, next_cursor=next_cursor)
