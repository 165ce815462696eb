"""Where allauth's mails (the password reset) go.

accounts sits below notifications (pyproject.toml's layers), so it cannot call the mail queue itself:
notifications hands its queue in here when the apps are ready (NotificationsConfig.ready). The adapter
gives each message it renders a connection that queues instead of talking SMTP, so no request ever waits
on (or fails with) the mail server.
"""

from collections.abc import Callable

from django.core.mail import EmailMessage

MailQueue = Callable[..., object]

_queue: MailQueue | None = None


def account_mail_queue_register(queue: MailQueue) -> None:
    """`queue(message=EmailMessage)` stores the message for the background worker."""
    global _queue
    _queue = queue


class QueueConnection:
    """An e-mail 'connection' whose send_messages queues the messages; allauth's `msg.send()` lands here."""

    def __init__(self, queue: MailQueue):
        self.queue = queue

    def send_messages(self, email_messages: list[EmailMessage]) -> int:
        for message in email_messages:
            self.queue(message=message)
        return len(email_messages)


def queue_connection() -> QueueConnection | None:
    return QueueConnection(_queue) if _queue is not None else None
