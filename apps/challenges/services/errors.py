"""The refusals of the challenge services; the message is Dutch and meant for the member."""


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


class ChallengeCompletedError(ChallengeError):
    """Stopping a finished card: refused, the card is kept."""


class DipNotFoundError(ChallengeError):
    """No such dip of this member (someone else's dip is answered the same way)."""
