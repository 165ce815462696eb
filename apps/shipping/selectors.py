"""Reads of the physical badges: the filter of the admin's list, the counts per status, the to-send list."""

from dataclasses import dataclass

from django.db.models import Q, Sum
from django.db.models.functions import Coalesce

from apps.challenges.models import BadgeTally, PhysicalStatus, UserBadge
from apps.core.numbers import whole_number


@dataclass(frozen=True)
class PhysicalFilter:
    status: str = ""
    badge_id: int | None = None
    cursor: str = ""

    @classmethod
    def from_query(cls, query) -> "PhysicalFilter":
        """Read the filter from the query string; anything unknown is simply no filter."""
        status = query.get("status", "")
        badge = query.get("badge", "")
        return cls(
            status=status if status in PhysicalStatus.values else "",
            badge_id=whole_number(badge),
            cursor=query.get("na", "")[:200],
        )

    def queryset(self):
        awards = UserBadge.objects.all()
        if self.status:
            awards = awards.filter(physical_status=self.status)
        if self.badge_id is not None:
            awards = awards.filter(badge_id=self.badge_id)
        return awards


def physical_counts() -> list[tuple[PhysicalStatus, int]]:
    """How many earned badges there are per physical status, in the order of the statuses (one query, over the
    badges' tallies the database keeps: a row per badge and status, not every award)."""
    counts = BadgeTally.objects.aggregate(
        **{status: Coalesce(Sum("awards", filter=Q(physical_status=status)), 0) for status in PhysicalStatus.values}
    )
    return [(PhysicalStatus(status), counts[status]) for status in PhysicalStatus.values]


def address_lines(user) -> list[str]:
    address = getattr(user, "postal_address", None)
    return address.lines if address is not None else []


def to_send_rows(*, badge_id: int | None = None):
    """The badges waiting to be posted, oldest first, with the address: for labels."""
    awards = UserBadge.objects.filter(physical_status=PhysicalStatus.TO_SEND)
    if badge_id is not None:
        awards = awards.filter(badge_id=badge_id)
    for award in awards.select_related("user__postal_address", "badge", "user_challenge__challenge").order_by(
        "earned_at", "pk"
    ):
        address = getattr(award.user, "postal_address", None)
        yield [
            (address.recipient.strip() if address else "") or award.user.full_name,
            award.user.email,
            address.street if address else "",
            address.postcode if address else "",
            address.city if address else "",
            address.country if address else "",
            award.badge.name,
            award.user_challenge.challenge.name,
            award.earned_at,
        ]
