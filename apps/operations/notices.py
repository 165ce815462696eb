"""What the installation tells the club's admins (apps.notifications.registry): the Systeemstatus turned red.
For admins only and whatever their mail choices (keeping the site running is their job): no choice on /account
and no unsubscribe. The lines are read when the mail goes out, from the checks that are red then."""

from django.conf import settings

from apps.notifications.links import absolute_url
from apps.notifications.models import Mail
from apps.notifications.registry import MessageKind, message_kinds_register

from .models import StatusAlert

SYSTEM_STATUS = "system_status"


def _status_context(mail: Mail) -> dict:
    return {
        "lines": list(StatusAlert.objects.order_by("red_since", "check_name").values_list("line", flat=True)),
        "link": absolute_url("/admin#systeemstatus"),
        "site": settings.SITE_URL,
    }


message_kinds_register(
    MessageKind(
        SYSTEM_STATUS,
        display="Systeemstatus",
        subject="Systeemstatus: er is iets gestopt",
        templates="operations/mail/system_status",
        context=_status_context,
    ),
)
