"""The codes of the installation's refusals (backup, restore): what code branches on, never the Dutch sentence;
and the error that carries them."""

from enum import StrEnum

from apps.core.errors import DomainError


class OperationsRefusal(StrEnum):
    BACKUP_NAME_TAKEN = "backup_name_taken"
    NO_DATABASE = "no_database"
    CANNOT_WRITE = "cannot_write"
    UNSUPPORTED_DATABASE = "unsupported_database"
    TOOL_MISSING = "tool_missing"
    TOOL_FAILED = "tool_failed"
    NOT_AN_ARCHIVE = "not_an_archive"
    ARCHIVE_INCOMPLETE = "archive_incomplete"
    ARCHIVE_MISSING = "archive_missing"
    ARCHIVE_UNREADABLE = "archive_unreadable"
    ARCHIVE_NEWER = "archive_newer"
    ARCHIVE_DAMAGED = "archive_damaged"
    OTHER_DATABASE = "other_database"
    TARGET_NOT_EMPTY = "target_not_empty"
    TARGET_IN_USE = "target_in_use"
    CANNOT_CREATE_DATABASE = "cannot_create_database"
    UNEXPECTED_MEMBER = "unexpected_member"
    MANIFEST_INVALID = "manifest_invalid"
    ARCHIVE_TAMPERED = "archive_tampered"
    NO_ROOM = "no_room"
    CACHE_NOT_EMPTIED = "cache_not_emptied"


class BackupError(DomainError):
    """A backup or a restore that cannot go on; the message is Dutch and meant for the operator."""
