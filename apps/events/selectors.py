"""Reads for the events on the dashboard, /events, the calendar subscription and the /account section."""

from dataclasses import dataclass

from django.core.paginator import Page as PaginatorPage
from django.core.paginator import Paginator
from django.db.models import BooleanField, Count, Exists, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from apps.core.page_cache import PAGE_TIMEOUT
from apps.notifications.services import mail_preference_for

from .models import CalendarFeed, Event, EventParticipant, EventWaitlistEntry

DASHBOARD_EVENT_LIMIT = 3
# Upcoming events per page of /events: a club with many plans gets "Meer events", not one endless page.
EVENTS_PER_PAGE = 10
# Past events on /events: the member's own history, newest first, within reason.
PAST_EVENT_LIMIT = 50


@dataclass(frozen=True)
class EventCard:
    """One event as a member sees it."""

    event: Event
    participant_count: int
    joined: bool
    waitlist_position: int | None = None

    @property
    def is_full(self) -> bool:
        maximum = self.event.max_participants
        return maximum is not None and self.participant_count >= maximum

    @property
    def places_left(self) -> int | None:
        maximum = self.event.max_participants
        return None if maximum is None else max(maximum - self.participant_count, 0)

    @property
    def on_waitlist(self) -> bool:
        return self.waitlist_position is not None

    @property
    def can_join(self) -> bool:
        return not self.joined and not self.on_waitlist and not self.is_full

    @property
    def can_wait(self) -> bool:
        return not self.joined and not self.on_waitlist and self.is_full


def _count(model):
    """A correlated COUNT: two counts through joins would multiply each other."""
    rows = model.objects.filter(event=OuterRef("pk")).order_by().values("event").annotate(total=Count("pk"))
    return Coalesce(Subquery(rows.values("total"), output_field=IntegerField()), 0)


def _cards(events) -> list[EventCard]:
    return [
        EventCard(
            event=event,
            participant_count=event.participant_total,
            joined=event.joined_by_user,
            waitlist_position=event.waitlist_place or None,
        )
        for event in events
    ]


def _annotated(user):
    """Events with the participant count, the member's place and their waitlist position (0: not waiting),
    all computed by the database in the one query."""
    if user is None or not user.is_authenticated:
        return Event.objects.annotate(
            participant_total=_count(EventParticipant),
            joined_by_user=Value(False, output_field=BooleanField()),
            waitlist_place=Value(0, output_field=IntegerField()),
        )
    mine = EventWaitlistEntry.objects.filter(event=OuterRef("pk"), user=user).values("id")[:1]
    ahead_and_mine = (
        EventWaitlistEntry.objects.filter(event=OuterRef("pk"), id__lte=OuterRef("my_waitlist_entry"))
        .order_by()
        .values("event")
        .annotate(total=Count("pk"))
        .values("total")
    )
    return Event.objects.annotate(
        participant_total=_count(EventParticipant),
        joined_by_user=Exists(EventParticipant.objects.filter(event=OuterRef("pk"), user=user)),
        my_waitlist_entry=Subquery(mine),
    ).annotate(waitlist_place=Coalesce(Subquery(ahead_and_mine, output_field=IntegerField()), 0))


def upcoming_events_for(user, *, limit: int | None = DASHBOARD_EVENT_LIMIT) -> list[EventCard]:
    """The next active events, earliest first, in one query whatever the number of participants.

    The count and the member's own participation are computed by the database (COUNT + EXISTS), so
    the page never loads participant rows.
    """
    events = _annotated(user).filter(is_active=True, event_date__gte=timezone.now()).order_by("event_date", "pk")
    if limit is not None:
        events = events[:limit]
    return _cards(events)


@dataclass(frozen=True)
class EventsPage:
    """One page of the upcoming events on /events, and where the others are."""

    cards: list[EventCard]
    page: PaginatorPage
    valid_for: float  # seconds: until the first upcoming event starts, which moves every page and the history


def upcoming_events_page(user, *, number: str | int | None) -> EventsPage:
    """The upcoming events on page `number` (1 is the first; anything that is not a page is the nearest
    one): one count and one query for the page's events."""
    events = _annotated(user).filter(is_active=True, event_date__gte=timezone.now()).order_by("event_date", "pk")
    page = Paginator(events, EVENTS_PER_PAGE).get_page(number)
    cards = _cards(page.object_list)
    first = cards[:1] if page.number == 1 else _cards(events[:1])
    return EventsPage(cards=cards, page=page, valid_for=seconds_until_first_starts(first))


def seconds_until_first_starts(cards: list[EventCard]) -> float:
    """How long a list of upcoming events stays true: until its first event starts (a day at most)."""
    if not cards:
        return PAGE_TIMEOUT
    return min((cards[0].event.event_date - timezone.now()).total_seconds(), PAGE_TIMEOUT)


def past_events_joined_by(user, *, limit: int = PAST_EVENT_LIMIT) -> list[EventCard]:
    events = (
        _annotated(user)
        .filter(event_date__lt=timezone.now(), participants__user=user)
        .order_by("-event_date", "-pk")[:limit]
    )
    return [EventCard(event=event, participant_count=event.participant_total, joined=True) for event in events]


def calendar_events_for_token(token: str) -> tuple[CalendarFeed, list[Event]] | None:
    """The feed behind a subscription link and the active events its member joined; None for an unknown link."""
    feed = CalendarFeed.objects.select_related("user").filter(token=token).first()
    if feed is None or not feed.user.is_active:
        return None
    events = list(Event.objects.filter(is_active=True, participants__user_id=feed.user_id).order_by("event_date", "pk"))
    return feed, events


@dataclass(frozen=True)
class CalendarLinks:
    https: str
    webcal: str


def calendar_links(feed: CalendarFeed | None, *, request) -> CalendarLinks | None:
    if feed is None:
        return None
    https = request.build_absolute_uri(reverse("calendar_feed", args=[feed.token]))
    # webcal:// is the same address that a phone opens as a subscription rather than a download.
    webcal = "webcal://" + https.split("://", 1)[1]
    return CalendarLinks(https=https, webcal=webcal)


@dataclass(frozen=True)
class ClubLifeSettings:
    """The /account section 'Agenda-abonnement en herinneringen'."""

    calendar: CalendarLinks | None
    event_mails: bool
    dip_nudge: bool


def club_life_settings_for(user, *, request) -> ClubLifeSettings:
    feed = CalendarFeed.objects.filter(user=user).first()
    preference = mail_preference_for(user)
    return ClubLifeSettings(
        calendar=calendar_links(feed, request=request),
        event_mails=preference.event_mails,
        dip_nudge=preference.dip_nudge,
    )
