"""The codes of the accounts' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class AccountRefusal(StrEnum):
    USER_UNKNOWN = "user_unknown"
    SELF_DELETE = "self_delete"
    LAST_ADMIN = "last_admin"  # the club never has zero active admins
    SESSION_EXPIRED = "session_expired"
    NOT_ADMIN = "not_admin"
    SECOND_FACTOR_REQUIRED = "second_factor_required"
