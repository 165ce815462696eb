"""The refusals of the challenge services; the message is Dutch and meant for the member."""

from apps.core.errors import DomainError, NotFoundError


class ChallengeError(DomainError):
    """A refused action; the message is Dutch and meant for the member. Mostly the card's state: a conflict."""

    status = 409


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


class ChallengeCompletedError(ChallengeError):
    """Stopping a finished card: refused, the card is kept."""


class DipNotFoundError(ChallengeError, NotFoundError):
    """No such dip of this member (someone else's dip is answered the same way)."""

    status = 404
