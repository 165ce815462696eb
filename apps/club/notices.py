"""What a member hears from the club feed: one function per notice, through `notice_send` (push or mail, as the
member chose for "Reacties" under Meldingen on /account)."""

import datetime

from apps.accounts.models import User
from apps.notifications.notices import REACTION, notice_send


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
