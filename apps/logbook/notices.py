"""What the logbook tells a member (apps.notifications.registry): their export is ready. An answer to what they
asked for: no choice on /account, no unsubscribe."""

from django.conf import settings
from django.urls import reverse

from apps.notifications.links import absolute_url
from apps.notifications.models import Mail
from apps.notifications.registry import MessageKind, message_kinds_register

EXPORT_READY = "export_ready"


def _export_context(mail: Mail) -> dict:
    return {
        "export_url": absolute_url(reverse("account") + "#export"),
        "export_keep_hours": settings.EXPORT_KEEP_HOURS,
    }


message_kinds_register(
    MessageKind(
        EXPORT_READY,
        display="Je gegevens staan klaar",
        subject="Je gegevens staan klaar om te downloaden",
        templates="logbook/mail/export_ready",
        context=_export_context,
    ),
)
