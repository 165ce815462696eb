"""The codes of the club page's refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class ClubRefusal(StrEnum):
    ITEM_GONE = "item_gone"
    NOT_ADMIN = "not_admin"
    BRRR_NOT_HERE = "brrr_not_here"  # only on other members' dips and badges
