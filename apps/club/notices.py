"""What a member hears from the club feed: one function per notice, through `notice_send` (push or mail, as the
member chose for "Reacties" under Meldingen on /account)."""

import datetime

from django.urls import reverse

from apps.accounts.models import User
from apps.notifications.links import UnsubscribeScope, absolute_url
from apps.notifications.models import Mail
from apps.notifications.notices import notice_send
from apps.notifications.registry import MessageKind, message_kinds_register

REACTION = "reaction"
BRRR_MAIL = "brrr"


def brrr_notice_key(*, owner_id: int, day: datetime.date) -> str:
    """One notice per owner per day: the key the notice (and its mail) refuses a second time."""
    return f"brrr:{owner_id}:{day.isoformat()}"


def brrr_notice(*, owner: User, day: datetime.date, count: int, now: datetime.datetime | None = None) -> bool:
    """Tell `owner` that clubmates gave Brrr! on their items. False when nothing was sent: the member chose Uit,
    or was told today already."""
    body = (
        "Een clubgenoot gaf Brrr! op je plons."
        if count == 1
        else f"Clubgenoten gaven {count} keer Brrr! op je plonsen."
    )
    told = notice_send(
        user=owner,
        kind=REACTION,
        title="Brrr! van de club",
        body=body,
        url="/club",
        dedupe_key=brrr_notice_key(owner_id=owner.pk, day=day),
        now=now,
    )
    return told is not None


def _brrr_context(mail: Mail) -> dict:
    return {"club_url": absolute_url(reverse("club"))}


message_kinds_register(
    # Batched here (send_brrr_notices: one notice a day at most, with its key); the batch window is for single
    # reactions sent without one.
    MessageKind(
        REACTION,
        mail_name=BRRR_MAIL,
        subject="Brrr! Je clubgenoten zagen je plonsen",
        templates="club/mail/brrr",
        context=_brrr_context,
        label="Brrr! op je plons",
        group="Reacties",
        position=40,
        batch_seconds=300,
        unsubscribe=UnsubscribeScope.CLUB_NOTICES,
    ),
)
