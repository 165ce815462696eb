"""The codes of the events' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class EventRefusal(StrEnum):
    # Signing up, the waitlist and its offers.
    EVENT_UNKNOWN = "event_unknown"
    INACTIVE = "inactive"  # cancelled or no longer available
    PAST = "past"
    ALREADY_JOINED = "already_joined"
    FULL = "full"
    ALREADY_WAITLISTED = "already_waitlisted"
    OFFER_NONE = "offer_none"
    OFFER_NOT_YET = "offer_not_yet"
    OFFER_EXPIRED = "offer_expired"
    # Guests.
    GUESTS_CLOSED = "guests_closed"
    GUESTS_ADMIN_ONLY = "guests_admin_only"
    GUESTS_NOT_YET = "guests_not_yet"
    GUEST_LIMIT_REACHED = "guest_limit_reached"  # the event's own cap on guests
    GUEST_CONFIRM_TOO_LATE = "guest_confirm_too_late"  # the hold ran out and the places went meanwhile
    # Organising: the details, a series, changing and cancelling.
    TITLE_REQUIRED = "title_required"
    TITLE_TOO_LONG = "title_too_long"
    LOCATION_TOO_LONG = "location_too_long"
    MAXIMUM_TOO_LOW = "maximum_too_low"
    MAXIMUM_BELOW_PARTICIPANTS = "maximum_below_participants"
    GUEST_LIMIT_TOO_LOW = "guest_limit_too_low"
    START_IN_PAST = "start_in_past"
    REPEAT_BEFORE_START = "repeat_before_start"
    SERIES_TOO_LONG = "series_too_long"
    CANCELLED = "cancelled"  # a cancelled event is not changed any more
    ALREADY_CANCELLED = "already_cancelled"
    CANCEL_REASON_REQUIRED = "cancel_reason_required"
    CANCEL_REASON_TOO_LONG = "cancel_reason_too_long"
    # A weekly series as one thing: "Ik kom elke week" and "Ik stop met deze reeks".
    SERIES_UNKNOWN = "series_unknown"
    SERIES_OVER = "series_over"  # no coming date left to sign up for
