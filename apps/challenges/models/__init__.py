"""The challenges' models, one module per subject (cards, club); this package re-exports them, so
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

__all__ = [
    "PHYSICAL_STATUS_TEXTS",
    "Badge",
    "Challenge",
    "ClubChallenge",
    "ClubChallengeEntry",
    "Dip",
    "DipBuddy",
    "PhysicalStatus",
    "UserBadge",
    "UserChallenge",
    "photo_storage",
    "physical_status_text",
]
