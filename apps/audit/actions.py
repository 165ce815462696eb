"""The declared actions of the audit log: every admin or organiser action that changes or reveals other
members' data. A new one is one entry here, recorded by its service, and a test that performs it
(tests/audit/test_actions.py walks this list)."""

from django.db import models


class AuditAction(models.TextChoices):
    USER_DELETED = "user_deleted", "Lid verwijderd"
    ROLE_GRANTED = "role_granted", "Rol gegeven"
    ROLE_REVOKED = "role_revoked", "Rol afgenomen"
    SUBSCRIBERS_EXPORTED = "subscribers_exported", "Nieuwsbriefadressen gedownload"
    USERS_EXPORTED = "users_exported", "Gebruikerslijst gedownload"
    ADDRESSES_EXPORTED = "addresses_exported", "Adressen voor badges gedownload"
    FEED_ITEM_HIDDEN = "feed_item_hidden", "Item in de clubfeed verborgen"
    EVENT_CANCELLED = "event_cancelled", "Event afgelast"
    ATTENDANCE_MARKED = "attendance_marked", "Aanwezigheid afgetekend"
    SECOND_FACTOR_RESET = "second_factor_reset", "Tweede factor gewist"
    INVITATIONS_BULK = "invitations_bulk", "Uitnodigingen in bulk"
    CLUB_MESSAGE_SENT = "club_message_sent", "Clubbericht verstuurd"
    REPLY_REMOVED = "reply_removed", "Reactie van een lid verwijderd"
