"""The codes of the admin screens' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class AdminRefusal(StrEnum):
    INVITATION_GONE = "invitation_gone"
    INVITATION_REQUEST_BAD = "invitation_request_bad"  # the create or bulk request could not be read
    BAD_SORT = "bad_sort"
    BAD_SEARCH = "bad_search"
    BAD_CURSOR = "bad_cursor"
    NO_SUBSCRIBERS = "no_subscribers"
    USER_GONE = "user_gone"
    ORGANISER_REQUEST_BAD = "organiser_request_bad"
    ORGANISER_SELF = "organiser_self"  # an admin cannot make themselves organiser
