"""The Django admin of the challenges app, one module per subject; importing them registers the admins."""

from . import catalogue, club_challenges, members
from .catalogue import BadgeArtField

__all__ = ["BadgeArtField", "catalogue", "club_challenges", "members"]
