"""Mail rules: queue (in the caller's transaction), deliver (in the worker), retry, preferences, unsubscribe.

Queueing writes a `Mail` row and a django-tasks row in the same transaction as the change that
causes the mail, so a rolled-back change sends nothing and a committed one is never forgotten.

The rules live in submodules (mail_queue, delivery, push_subscriptions, club_messages); this package
re-exports their public names, so `from apps.notifications.services import ...` works as before.
"""

from .club_messages import (
    CLUB_BODY_MAX,
    CLUB_TITLE_MAX,
    MESSAGE_CLUB_BODY,
    MESSAGE_CLUB_TITLE,
    NOTICES_PER_TASK,
    club_message_fan_out_run,
    club_message_send,
)
from .delivery import (
    MAX_ATTEMPTS,
    MESSAGE_BAD_UNSUBSCRIBE_LINK,
    RETRY_AFTER,
    mail_unsubscribe,
    mails_deliver,
    mails_recover_stuck,
    mails_retry_failed,
)
from .mail_queue import (
    MAILS_PER_TASK,
    MESSAGE_NO_EMAIL,
    MESSAGE_NO_INVITATION,
    MESSAGE_NOT_ACTIVE,
    MESSAGE_OPTED_OUT,
    MESSAGE_RESENT,
    MailError,
    account_mail_queue,
    allauth_mail_queue,
    guest_mail_queue,
    invitation_mail_resend,
    invitation_mails_prepare,
    invitation_mails_queue,
    mail_preference_for,
    mail_preference_set,
    mails_enqueue,
    member_mail_queue,
)
from .push_subscriptions import (
    MESSAGE_NO_DEVICE,
    MESSAGE_NOTICE_CHANNEL,
    MESSAGE_NOTICE_KIND,
    MESSAGE_PUSH_BAD_SUBSCRIPTION,
    MESSAGE_PUSH_NOT_HTTPS,
    MESSAGE_PUSH_OFF,
    PushError,
    notice_preferences_set,
    push_subscription_delete,
    push_subscription_save,
    push_subscriptions_expire,
)

__all__ = [
    "CLUB_BODY_MAX",
    "CLUB_TITLE_MAX",
    "MAILS_PER_TASK",
    "MAX_ATTEMPTS",
    "MESSAGE_BAD_UNSUBSCRIBE_LINK",
    "MESSAGE_CLUB_BODY",
    "MESSAGE_CLUB_TITLE",
    "MESSAGE_NOTICE_CHANNEL",
    "MESSAGE_NOTICE_KIND",
    "MESSAGE_NOT_ACTIVE",
    "MESSAGE_NO_DEVICE",
    "MESSAGE_NO_EMAIL",
    "MESSAGE_NO_INVITATION",
    "MESSAGE_OPTED_OUT",
    "MESSAGE_PUSH_BAD_SUBSCRIPTION",
    "MESSAGE_PUSH_NOT_HTTPS",
    "MESSAGE_PUSH_OFF",
    "MESSAGE_RESENT",
    "MailError",
    "NOTICES_PER_TASK",
    "PushError",
    "RETRY_AFTER",
    "account_mail_queue",
    "allauth_mail_queue",
    "club_message_fan_out_run",
    "club_message_send",
    "guest_mail_queue",
    "invitation_mail_resend",
    "invitation_mails_prepare",
    "invitation_mails_queue",
    "mail_preference_for",
    "mail_preference_set",
    "mail_unsubscribe",
    "mails_deliver",
    "mails_recover_stuck",
    "mails_retry_failed",
    "member_mail_queue",
    "notice_preferences_set",
    "mails_enqueue",
    "push_subscription_delete",
    "push_subscription_save",
    "push_subscriptions_expire",
]
