"""One swim, one stamp: a dip is one time in the water, however many ways it reaches the card.

What "the same swim" is (docs/architecture.md, "One swim, one stamp"): two dips of one member are the same swim when
they lie on the same local day (the club's time zone, `dip_date`) AND within DIP_SAME_SWIM_HOURS hours
(default 3) of each other. The moments compared are the ones the dips count on: the member's tap (or the tap
time sent later from a phone without signal), the buddy's dip for "Zet op mijn kaart" (apps.together), the
event's start for "Was erbij" (apps.attendance). An afspraak or an event is shorter than that window, so a
member's own tap at a club swim and the organiser's tick of it fall in one swim; two swims on one day (a
morning and an evening one) stay two.

A new dip that finds a dip of the same swim adds no stamp: it CONFIRMS the one already there
(`DipOutcome.confirmed`, the answer's `outcome` "confirmed"). A buddy's tag then names that dip ("Met Anna",
the tag's `buddy_dip`), an organiser's tick signs it off ("Afgetekend door …", the attendance row's `dip`),
a second tap of the member adds what the first lacked (a photo, conditions, clubmates). The rule holds
whatever DIP_DAILY_LIMIT_ENABLED says and counts every dip of the member (with or without a card), so the
club goals, which count dips, count swims. `dip_register` looks under the member's row lock
(recount.member_lock): two phones tapping at once make one stamp.
"""

import datetime
from collections.abc import Sequence

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from ..conditions import DipConditions
from ..models import Dip


def same_swim_window() -> datetime.timedelta:
    return datetime.timedelta(hours=settings.DIP_SAME_SWIM_HOURS)


def same_swim_dip(*, user_id: int, moment: datetime.datetime) -> Dip | None:
    """The member's dip of the same swim as `moment` (the earliest, if there were ever two), or None."""
    window = same_swim_window()
    if window <= datetime.timedelta(0):
        return None
    return (
        Dip.objects.filter(
            user_id=user_id,
            dip_date=timezone.localdate(moment),
            created_at__gte=moment - window,
            created_at__lte=moment + window,
        )
        .order_by("created_at", "pk")
        .first()
    )


def dip_complete(
    dip: Dip, *, photo_names: tuple[str, str], conditions: DipConditions, share_photo: bool
) -> tuple[str, str]:
    """What a second tap of the same swim adds to the dip already there: a photo when it has none, and the
    conditions it left empty. Returns the photo files it did not take (for the caller to remove)."""
    changed: list[str] = []
    unused = photo_names
    if photo_names[0] and not dip.photo:
        dip.photo, dip.thumbnail, dip.share_photo = photo_names[0], photo_names[1], share_photo
        changed += ["photo", "thumbnail", "share_photo"]
        unused = ("", "")
    for field in ("water_temperature", "duration_seconds", "spot", "note"):
        value = getattr(conditions, field)
        if value not in (None, "") and getattr(dip, field) in (None, ""):
            setattr(dip, field, value)
            changed.append(field)
    if changed:
        dip.save(update_fields=changed)
    return unused


def buddies_not_yet_named(dip: Dip, buddy_ids: Sequence[int]) -> list[int]:
    """The clubmates of `buddy_ids` the dip does not name yet (a dip names each buddy once)."""
    named = set(dip.buddies.filter(Q(buddy_id__in=buddy_ids)).values_list("buddy_id", flat=True))
    return [buddy_id for buddy_id in buddy_ids if buddy_id not in named]
