"""The codes of the notifications' refusals: what code branches on (never the Dutch sentence)."""

from enum import StrEnum


class NotificationRefusal(StrEnum):
    # Push devices and the member's choices.
    PUSH_OFF = "push_off"
    BAD_SUBSCRIPTION = "bad_subscription"
    ENDPOINT_REFUSED = "endpoint_refused"
    ENDPOINT_LOOKUP_SLOW = "endpoint_lookup_slow"
    NO_DEVICE = "no_device"
    NOTICE_KIND_UNKNOWN = "notice_kind_unknown"
    NOTICE_CHANNEL_UNKNOWN = "notice_channel_unknown"
    # Mail: invitations resent, unsubscribe links, club messages.
    INVITATION_GONE = "invitation_gone"
    INVITATION_NO_EMAIL = "invitation_no_email"
    INVITATION_NOT_ACTIVE = "invitation_not_active"
    OPTED_OUT = "opted_out"
    BAD_UNSUBSCRIBE_LINK = "bad_unsubscribe_link"
    CLUB_MESSAGE_INVALID = "club_message_invalid"
