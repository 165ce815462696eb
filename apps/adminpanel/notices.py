"""What the admin screen tells a member (apps.notifications.registry): she was made organiser, what she can do
now and how to set up the second factor the role needs. An answer to an admin's act, not a choice of hers:
no choice on /account and no unsubscribe."""

from django.urls import reverse

from apps.accounts.second_factor import SETUP_ANCHOR, SETUP_URL_NAME
from apps.notifications.links import absolute_url
from apps.notifications.models import Mail
from apps.notifications.registry import MessageKind, message_kinds_register

ORGANISER_APPOINTED = "organiser_appointed"


def _organiser_context(mail: Mail) -> dict:
    assert mail.user is not None  # a member's mail, gone with the member (CASCADE)
    return {
        # Read when the mail goes out: a factor she added in the meantime is not asked for again.
        "has_second_factor": mail.user.admin_standing.has_second_factor,
        "factor_link": absolute_url(reverse(SETUP_URL_NAME) + SETUP_ANCHOR),
        "organiser_link": absolute_url(reverse("adminpanel")),
    }


message_kinds_register(
    MessageKind(
        ORGANISER_APPOINTED,
        display="Je bent organisator",
        subject="Je bent nu organisator bij de Koud water challenge",
        templates="adminpanel/mail/organiser_appointed",
        context=_organiser_context,
    ),
)
