"""Events in the past and ahead, open-ended, capped and full, with their participants."""

import datetime
import random
from typing import TYPE_CHECKING

from django.utils import timezone

from apps.accounts.models import User
from apps.events.models import Event, EventParticipant

from .common import EVENT_KINDS, EVENT_PLACES, EVENT_PREFIX

if TYPE_CHECKING:
    from .seeder import LoadSeeder


def write_events(seeder: "LoadSeeder", users: list[User]) -> int:
    """Half in the past, half ahead, every few days; some open-ended, some capped, some full."""
    rng = random.Random(seeder.seed + 4)
    events, sign_ups = [], []
    for index in range(seeder.events):
        offset_days = (index - seeder.events // 2) * 5 + 1
        day = seeder.today + datetime.timedelta(days=offset_days)
        maximum = None if index % 3 == 0 else rng.choice([8, 12, 20, 30, 50])
        if maximum is None:
            count = rng.randint(0, 80)
        elif index % 4 == 1:
            count = maximum  # full
        else:
            count = rng.randint(0, maximum)
        event = Event(
            title=f"{EVENT_PREFIX} {index + 1:02d}: {EVENT_KINDS[index % len(EVENT_KINDS)]}",
            event_date=timezone.make_aware(datetime.datetime.combine(day, datetime.time(9, 0))),
            location=EVENT_PLACES[index % len(EVENT_PLACES)],
            description="Samen het koude water in. Neem een warme trui en een thermoskan mee.",
            max_participants=maximum,
            is_active=index % 10 != 9,
            created_at=seeder.now - datetime.timedelta(days=200),
        )
        events.append(event)
        sign_ups.append(rng.sample(users, min(count, len(users))))
    events = Event.objects.bulk_create(events, batch_size=seeder.batch)
    rows = []
    for event, members in zip(events, sign_ups, strict=True):
        for member in members:
            moment = min(event.event_date, seeder.now) - datetime.timedelta(hours=rng.randint(1, 24 * 20))
            rows.append(EventParticipant(event=event, user=member, created_at=max(moment, event.created_at)))
    EventParticipant.objects.bulk_create(rows, batch_size=seeder.batch)
    return len(rows)
