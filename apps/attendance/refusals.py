"""The codes of the attendance refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class AttendanceRefusal(StrEnum):
    EVENT_UNKNOWN = "event_unknown"
    EVENT_CANCELLED = "event_cancelled"
    NOT_YET = "not_yet"  # before the event's start
    TOO_LATE = "too_late"  # the window after the start is over
    NOT_ON_LIST = "not_on_list"
    FIND_EMPTY = "find_empty"
    FIND_NONE = "find_none"
    FIND_MANY = "find_many"


class ShoreRefusal(StrEnum):
    """ "Aan de waterkant": what a tap, an addition or "Iedereen is eruit" can be refused for."""

    SHORE_NOT_THE_DAY = "shore_not_the_day"  # the list is kept on the swim's day only
    SHORE_EVENT_CANCELLED = "shore_event_cancelled"
    SHORE_SWIMMER_UNKNOWN = "shore_swimmer_unknown"  # not a participant, guest or swimmer of this swim
    SHORE_BAD_TAP = "shore_bad_tap"  # no readable tap: its kind, moment or id
    SHORE_NAME_EMPTY = "shore_name_empty"
    SHORE_STILL_IN_WATER = "shore_still_in_water"  # "Iedereen is eruit" while the list says otherwise
    SHORE_OTHER_MEMBER = "shore_other_member"  # a tap kept on a shared phone, sent in another organiser's session
