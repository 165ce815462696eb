"""The codes of the shipping refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class ShippingRefusal(StrEnum):
    NOTHING_CHOSEN = "nothing_chosen"
    BAD_STATUS = "bad_status"
    FUTURE_DATE = "future_date"
    ADDRESS_INCOMPLETE = "address_incomplete"
    ADDRESS_TOO_LONG = "address_too_long"
