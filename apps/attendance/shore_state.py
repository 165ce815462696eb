"""What "Aan de waterkant" shows: every participant and guest of the swim, the swimmers added on the spot, and the
times of the day. Four queries whatever the size of the swim; only organisers and admins of the swim see it."""

import datetime

from django.conf import settings
from django.utils import timezone

from apps.events.models import Event, EventGuest, EventParticipant, guest_holds_place

from .models import ShoreList, ShoreSwimmer
from .shore import SwimmerRef, shore_name, shore_open


def _moment(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def shore_state(event: Event, *, now: datetime.datetime | None = None) -> dict:
    """The list as the phones read it (`ShoreState` in frontend/src/waterkant/types.ts), sorted by name: a row
    stays where the organiser found it, whatever happens to it; the top of the screen says who is in."""
    now = now or timezone.now()
    shore_list = ShoreList.objects.filter(event=event).first()
    rows: dict[str, dict] = {}
    for participant in EventParticipant.objects.filter(event=event, user__is_active=True).select_related("user"):
        ref = f"lid-{participant.user_id}"
        rows[ref] = _row(ref, participant.user.display_name, guest=False)
    for guest in EventGuest.objects.filter(guest_holds_place(now), event=event):
        ref = f"gast-{guest.pk}"
        rows[ref] = _row(ref, guest.name, guest=True)
    if shore_list is not None:
        for swimmer in ShoreSwimmer.objects.filter(shore_list=shore_list).select_related("user", "guest"):
            if swimmer.user is not None and not swimmer.user.is_active:
                continue
            ref = SwimmerRef.of(swimmer)
            row = rows.setdefault(ref, _row(ref, shore_name(swimmer), guest=swimmer.user_id is None))
            row["went_in_at"] = _moment(swimmer.went_in_at)
            row["came_out_at"] = _moment(swimmer.came_out_at)
    return {
        "event_id": event.pk,
        "open": shore_open(event, now=now),
        "closed_at": _moment(shore_list.closed_at if shore_list is not None else None),
        "now": now.isoformat(),
        "notice_minutes": settings.SHORE_NOTICE_MINUTES,
        "swimmers": sorted(rows.values(), key=lambda row: (row["name"].casefold(), row["ref"])),
    }


def _row(ref: str, name: str, *, guest: bool) -> dict:
    return {"ref": ref, "name": name, "guest": guest, "went_in_at": None, "came_out_at": None}
