"""Reads for the events section of the dashboard."""

from dataclasses import dataclass

from django.db.models import BooleanField, Count, Exists, OuterRef, Value
from django.utils import timezone

from .models import Event, EventParticipant

DASHBOARD_EVENT_LIMIT = 3


@dataclass(frozen=True)
class EventCard:
    """One event as a member sees it on the dashboard."""

    event: Event
    participant_count: int
    joined: bool

    @property
    def is_full(self) -> bool:
        maximum = self.event.max_participants
        return maximum is not None and self.participant_count >= maximum

    @property
    def can_join(self) -> bool:
        return not self.joined and not self.is_full


def upcoming_events_for(user, *, limit: int = DASHBOARD_EVENT_LIMIT) -> list[EventCard]:
    """The next active events, earliest first, in one query whatever the number of participants.

    The count and the member's own participation are computed by the database (COUNT + EXISTS), so
    the page never loads participant rows.
    """
    if user is not None and user.is_authenticated:
        joined = Exists(EventParticipant.objects.filter(event=OuterRef("pk"), user=user))
    else:
        joined = Value(False, output_field=BooleanField())
    events = (
        Event.objects.filter(is_active=True, event_date__gte=timezone.now())
        .annotate(participant_total=Count("participants"), joined_by_user=joined)
        .order_by("event_date", "pk")[:limit]
    )
    return [
        EventCard(event=event, participant_count=event.participant_total, joined=event.joined_by_user)
        for event in events
    ]
