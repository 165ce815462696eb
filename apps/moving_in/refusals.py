"""The codes of the import's refusals: what code branches on, never the Dutch sentence."""

from enum import StrEnum


class MovingInRefusal(StrEnum):
    OWN_DATABASE = "own_database"
    SOURCE_UNREACHABLE = "source_unreachable"
    NOT_THE_ORIGINAL = "not_the_original"
    NOT_POSTGRESQL = "not_postgresql"
    BAD_OPTION = "bad_option"
    ALREADY_RUNNING = "already_running"
    EMAIL_CONFLICTS = "email_conflicts"
