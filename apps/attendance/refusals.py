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
