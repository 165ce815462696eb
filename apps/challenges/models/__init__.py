"""The challenges' models, one module per subject (cards, club, tallies); this package re-exports them, so
`apps.challenges.models.X` (also in migrations) works as before."""

from .cards import (
    PHYSICAL_STATUS_TEXTS,
    Badge,
    Challenge,
    Dip,
    DipBuddy,
    PhysicalStatus,
    UserBadge,
    UserChallenge,
    photo_storage,
    physical_status_text,
)
from .club import ClubChallenge, ClubChallengeEntry
from .tallies import BadgeTally, DipWeekTally, MemberWeekTally

__all__ = [
    "PHYSICAL_STATUS_TEXTS",
    "Badge",
    "BadgeTally",
    "Challenge",
    "ClubChallenge",
    "ClubChallengeEntry",
    "Dip",
    "DipBuddy",
    "DipWeekTally",
    "MemberWeekTally",
    "PhysicalStatus",
    "UserBadge",
    "UserChallenge",
    "photo_storage",
    "physical_status_text",
]
