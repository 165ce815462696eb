"""The codes of the plonsafspraken's and buddy answers' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class TogetherRefusal(StrEnum):
    MEETUP_INVALID = "meetup_invalid"  # a field of the form: its message per field
    TOO_MANY_OPEN = "too_many_open"
    MEETUP_GONE = "meetup_gone"
    MEETUP_STARTED = "meetup_started"
    PROPOSER_STAYS = "proposer_stays"
    NOT_YOURS = "not_yours"
    BUDDY_UNKNOWN = "buddy_unknown"
    BUDDY_DONE = "buddy_done"  # answered already
    # Replies under an afspraak or an event.
    REPLY_INVALID = "reply_invalid"  # empty or too long: the field's message
    REPLY_CLOSED = "reply_closed"  # the afspraak or event is cancelled or gone
    REPLY_GONE = "reply_gone"  # the reply is not there (any more)
    REPLY_NOT_YOURS = "reply_not_yours"  # only the writer or an admin removes a reply
