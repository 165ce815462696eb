"""What the reminders tell members (apps.notifications.registry): the opt-in 14-day nudge. The day-before event
reminder is the events app's kind (apps/events/notices.py); this app only sends it at the right time."""

from django.urls import reverse

from apps.notifications.links import UnsubscribeScope, absolute_url
from apps.notifications.models import Mail
from apps.notifications.registry import MessageKind, message_kinds_register

DIP_NUDGE = "dip_nudge"


def _nudge_context(mail: Mail) -> dict:
    return {"challenge_url": absolute_url(reverse("challenge"))}


message_kinds_register(
    MessageKind(
        DIP_NUDGE,
        subject="Al 14 dagen geen plons: het water wacht op je",
        templates="reminders/mail/dip_nudge",
        context=_nudge_context,
        label="Herinnering na 14 dagen zonder plons",
        group="Herinnering",
        position=50,
        unsubscribe=UnsubscribeScope.DIP_NUDGE,
    ),
)
