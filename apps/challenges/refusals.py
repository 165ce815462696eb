"""The codes of the challenges' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class DipRefusal(StrEnum):
    # The stamp card and its dips.
    NO_CARD = "no_card"
    OTHER_CARD = "other_card"  # the tap names a card that is no longer the active one
    CARD_DONE = "card_done"
    CARD_FULL = "card_full"
    DAY_TAKEN = "day_taken"  # the daily limit: that day has a dip already
    BEFORE_CARD_START = "before_card_start"  # tapped before the card began
    BUDDY_BEFORE_CARD_START = "buddy_before_card_start"  # a buddy's dip from before the card began
    DIP_UNKNOWN = "dip_unknown"
    UNDO_TOO_LATE = "undo_too_late"
    BAD_REQUEST = "bad_request"
    OTHER_MEMBER = "other_member"  # a queued tap of another member than the session's: it stays on the phone
    # Starting and stopping a card.
    CHALLENGE_UNAVAILABLE = "challenge_unavailable"
    ALREADY_ACTIVE = "already_active"
    ALREADY_WATERDIEREN = "already_waterdieren"
    NOT_YOURS = "not_yours"
    CARD_UNKNOWN = "card_unknown"
    COMPLETED_KEPT = "completed_kept"
    # The catalogue and the club challenges.
    CHALLENGE_HAS_MEMBERS = "challenge_has_members"
    CLUB_CHALLENGE_INVALID = "club_challenge_invalid"
    CLUB_CHALLENGE_UNKNOWN = "club_challenge_unknown"
    CLUB_CHALLENGE_ENDED = "club_challenge_ended"
    CLUB_CHALLENGE_HAS_MEMBERS = "club_challenge_has_members"
    CLUB_CHALLENGE_COMPLETED_KEPT = "club_challenge_completed_kept"
    # A dip's conditions and photo, and badge art.
    CONDITIONS_INVALID = "conditions_invalid"
    PHOTO_TOO_LARGE = "photo_too_large"
    PHOTO_NOT_AN_IMAGE = "photo_not_an_image"
    PHOTO_DAMAGED = "photo_damaged"
    PHOTO_TOO_MANY_PIXELS = "photo_too_many_pixels"
    PHOTO_BUSY = "photo_busy"
    PHOTO_RATE = "photo_rate"
    PHOTO_INCOMPLETE = "photo_incomplete"
    SVG_REFUSED = "svg_refused"
