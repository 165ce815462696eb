"""Reads for the events on the dashboard, /events, the calendar subscription and the /account section."""

import dataclasses
import datetime
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS
from django.db.models import (
    BooleanField,
    Count,
    DateTimeField,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, Least, Now, RowNumber
from django.utils import timezone

from apps.core.page_cache import PAGE_TIMEOUT
from apps.core.prepared import PreparedQuery

from .models import Event, EventGuest, EventParticipant, EventWaitlistEntry, guest_holds_place

DASHBOARD_EVENT_LIMIT = 3
# Upcoming events per page of /events: a club with many plans gets "Meer events", not one endless page.
EVENTS_PER_PAGE = 10
# Past events on /events: the member's own history, newest first, within reason.
PAST_EVENT_LIMIT = 50
# Names of who goes on each card of /events; the event's own page lists everyone.
NAMES_ON_CARD = 8


@dataclass(frozen=True)
class EventCard:
    """One event as a member sees it."""

    event: Event
    participant_count: int  # members and guests
    joined: bool
    waitlist_position: int | None = None
    guest_count: int = 0
    offers_held: int = 0  # places held by open waitlist offers
    offer_expires_at: datetime.datetime | None = None  # the member's own open offer
    next_offer_end: datetime.datetime | None = None  # the first open offer or unconfirmed guest hold to run out
    # Who goes, by name (on /events the first NAMES_ON_CARD; on the event's own page all of them).
    names: tuple[str, ...] = ()

    @property
    def names_more(self) -> int:
        return max(self.participant_count - len(self.names), 0)

    @property
    def is_full(self) -> bool:
        maximum = self.event.max_participants
        return maximum is not None and self.participant_count + self.offers_held >= maximum

    @property
    def places_left(self) -> int | None:
        maximum = self.event.max_participants
        return None if maximum is None else max(maximum - self.participant_count - self.offers_held, 0)

    @property
    def has_offer(self) -> bool:
        return self.offer_expires_at is not None

    @property
    def on_waitlist(self) -> bool:
        return self.waitlist_position is not None

    @property
    def can_join(self) -> bool:
        return not self.joined and not self.on_waitlist and not self.is_full

    @property
    def can_wait(self) -> bool:
        return not self.joined and not self.on_waitlist and self.is_full


def _count(model, *where: Q, **conditions):
    """A correlated COUNT: two counts through joins would multiply each other."""
    rows = (
        model.objects.filter(*where, event=OuterRef("pk"), **conditions)
        .order_by()
        .values("event")
        .annotate(total=Count("pk"))
    )
    return Coalesce(Subquery(rows.values("total"), output_field=IntegerField()), 0)


def _cards(events) -> list[EventCard]:
    return [
        EventCard(
            event=event,
            participant_count=event.participant_total + event.guest_total,
            joined=event.joined_by_user,
            waitlist_position=event.waitlist_place or None,
            guest_count=event.guest_total,
            offers_held=event.offers_open,
            offer_expires_at=event.my_offer_expires_at,
            next_offer_end=event.next_offer_end,
        )
        for event in events
    ]


def _first_end(model, field: str, now) -> Subquery:
    rows = model.objects.filter(event=OuterRef("pk"), **{f"{field}__gt": now}).order_by(field).values(field)
    return Subquery(rows[:1], output_field=DateTimeField())


def _counts(now):
    offer_end = _first_end(EventWaitlistEntry, "offer_expires_at", now)
    hold_end = _first_end(EventGuest, "confirm_by", now)
    return {
        "participant_total": _count(EventParticipant),
        "guest_total": _count(EventGuest, guest_holds_place(now)),  # confirmed, or within their hold
        "offers_open": _count(EventWaitlistEntry, offer_expires_at__gt=now),
        # When the first open offer or guest hold runs out, the page's counts change: a cached page lives no
        # longer. (LEAST of the two, either of which may be NULL, on PostgreSQL and SQLite alike.)
        "next_offer_end": Least(Coalesce(offer_end, hold_end), Coalesce(hold_end, offer_end)),
    }


def _annotated(user, *, now=None):
    """Events with the participant count, the member's place and their waitlist position (0: not waiting),
    all computed by the database in the one query. `now` may be the database's clock (`Now()`)."""
    now = timezone.now() if now is None else now
    if user is None or not user.is_authenticated:
        return Event.objects.annotate(
            **_counts(now),
            joined_by_user=Value(False, output_field=BooleanField()),
            waitlist_place=Value(0, output_field=IntegerField()),
            my_offer_expires_at=Value(None, output_field=DateTimeField()),
        )
    return _annotated_for(user.pk, now=now)


def _annotated_for(user_id: int, *, now):
    mine = EventWaitlistEntry.objects.filter(event=OuterRef("pk"), user_id=user_id).values("id")[:1]
    my_offer = EventWaitlistEntry.objects.filter(
        event=OuterRef("pk"), user_id=user_id, offer_expires_at__gt=now
    ).values("offer_expires_at")[:1]
    ahead_and_mine = (
        EventWaitlistEntry.objects.filter(event=OuterRef("pk"), id__lte=OuterRef("my_waitlist_entry"))
        .order_by()
        .values("event")
        .annotate(total=Count("pk"))
        .values("total")
    )
    return Event.objects.annotate(
        **_counts(now),
        joined_by_user=Exists(EventParticipant.objects.filter(event=OuterRef("pk"), user_id=user_id)),
        my_waitlist_entry=Subquery(mine),
        my_offer_expires_at=Subquery(my_offer, output_field=DateTimeField()),
    ).annotate(waitlist_place=Coalesce(Subquery(ahead_and_mine, output_field=IntegerField()), 0))


# An event row of a prepared query (apps.core.prepared): the event's columns, then what its card counts.
EVENT_COLUMNS = tuple(field.attname for field in Event._meta.concrete_fields)
CARD_COLUMNS = (
    "participant_total",
    "guest_total",
    "offers_open",
    "next_offer_end",
    "joined_by_user",
    "waitlist_place",
    "my_offer_expires_at",
)


def annotated_events_at_database_clock(user_id: int):
    """Events with what a member's card shows (counts, her place, waitlist and offer), for a list built by a
    layer above (the plan list of apps.together) and compiled once (PreparedQuery): the member by id, the time
    the database's. Filter and order it, take `values_list(*EVENT_COLUMNS, *CARD_COLUMNS)`, make the rows
    into events with `events_from_rows` and those into cards with `cards_with_names`."""
    return _annotated_for(user_id, now=Now())


def card_from_row(row: tuple, full_names=()) -> EventCard:
    """One card from a row of `EVENT_COLUMNS + CARD_COLUMNS`, with the plain names of who goes on it."""
    [card] = _cards(events_from_rows([row]))
    return dataclasses.replace(card, names=tuple(map(display_name, full_names)))


def events_from_rows(rows) -> list[Event]:
    """Events with their card's annotations from rows of `EVENT_COLUMNS + CARD_COLUMNS`."""
    split = len(EVENT_COLUMNS)
    events = []
    for row in rows:
        event = Event.from_db(DEFAULT_DB_ALIAS, EVENT_COLUMNS, row[:split])
        event.__dict__.update(zip(CARD_COLUMNS, row[split:], strict=True))
        events.append(event)
    return events


def open_offers_for(user) -> list[EventWaitlistEntry]:
    """The member's open waitlist offers ("Er is een plek vrij"), soonest deadline first, each with its event: one
    query. The dashboard shows them at the top, not only /events."""
    now = timezone.now()
    offers = EventWaitlistEntry.objects.filter(user=user, offer_expires_at__gt=now, event__is_active=True)
    return list(offers.filter(event__event_date__gt=now).select_related("event").order_by("offer_expires_at", "pk"))


def upcoming_events_for(user, *, limit: int | None = DASHBOARD_EVENT_LIMIT) -> list[EventCard]:
    """The next active events, earliest first, in one query whatever the number of participants.

    The count and the member's own participation are computed by the database (COUNT + EXISTS), so
    the page never loads participant rows.
    """
    events = _annotated(user).filter(is_active=True, event_date__gte=timezone.now()).order_by("event_date", "pk")
    if limit is not None:
        events = events[:limit]
    return _cards(events)


def _seconds_until_offers_end(cards: list[EventCard]) -> list[float]:
    now = timezone.now()
    return [max((card.next_offer_end - now).total_seconds(), 1) for card in cards if card.next_offer_end]


def events_valid_for(cards: list[EventCard]) -> float:
    """How long a list of upcoming events stays true: until its first event starts, or the first open
    waitlist offer on it runs out (which frees or hands on a place)."""
    return min([seconds_until_first_starts(cards), *_seconds_until_offers_end(cards)])


def seconds_until_first_starts(cards: list[EventCard]) -> float:
    """How long a list of upcoming events stays true: until its first event starts (a day at most)."""
    if not cards:
        return PAGE_TIMEOUT
    return min((cards[0].event.event_date - timezone.now()).total_seconds(), PAGE_TIMEOUT)


# The member's history (/samen): one query compiled once per process, the time the database's.
_PAST_EVENTS = PreparedQuery(
    lambda user_id: (
        _annotated_for(user_id, now=Now())
        .filter(event_date__lt=Now(), participants__user_id=user_id)
        .order_by("-event_date", "-pk")
        .values_list(*EVENT_COLUMNS, *CARD_COLUMNS)[:PAST_EVENT_LIMIT]
    ),
    user_id=int,
)


def past_events_joined_by(user) -> list[EventCard]:
    """The past events the member took part in, newest first (PAST_EVENT_LIMIT at most)."""
    events = events_from_rows(_PAST_EVENTS.rows(user_id=user.pk))
    return [
        EventCard(event=event, participant_count=event.participant_total + event.guest_total, joined=True)  # type: ignore[attr-defined]
        for event in events
    ]


def display_name(full_name: str) -> str:
    """User.display_name, from the plain column (the lists read names, not whole members)."""
    return full_name.strip() or "Zwemmer"


def _names(*, event_ids, limit: int | None):
    rows = EventParticipant.objects.filter(event_id__in=event_ids).annotate(
        place=Window(RowNumber(), partition_by=[F("event_id")], order_by=[F("created_at").asc(), F("id").asc()])
    )
    if limit is not None:
        rows = rows.filter(place__lte=limit)
    return rows.order_by("event_id", "place").values_list("event_id", "user__full_name")


# The names on a page of cards (the plan list's page of 20 rows at most): the same query on every render,
# compiled once (apps/core/prepared.py); the unused places ask for event 0, no event's id.
_NAME_SLOTS = [f"event{number}" for number in range(20)]
_CARD_NAMES = PreparedQuery(
    lambda **ids: _names(event_ids=ids.values(), limit=NAMES_ON_CARD), **dict.fromkeys(_NAME_SLOTS, int)
)


def full_names_on_cards(ids: list[int], *, limit: int | None = NAMES_ON_CARD) -> dict[int, list[str]]:
    """Who goes on each of these events, in sign-up order, as the plain `full_name` column (`display_name`
    makes it the name shown): one query (a window function keeps the first `limit` per event)."""
    if limit == NAMES_ON_CARD and len(ids) <= len(_NAME_SLOTS):
        padded = ids + [0] * (len(_NAME_SLOTS) - len(ids))
        rows = _CARD_NAMES.rows(**dict(zip(_NAME_SLOTS, padded, strict=True)))
    else:
        rows = list(_names(event_ids=ids, limit=limit))
    names: dict[int, list[str]] = {}
    for event_id, full_name in rows:
        names.setdefault(event_id, []).append(full_name)
    return names


def _with_names(cards: list[EventCard], *, limit: int | None) -> list[EventCard]:
    """The cards with the names of who goes, in sign-up order: one query for all the cards, whatever the
    number of participants."""
    if not cards:
        return cards
    names = full_names_on_cards([card.event.pk for card in cards], limit=limit)
    return [dataclasses.replace(card, names=tuple(map(display_name, names.get(card.event.pk, ())))) for card in cards]


def event_card_for(user, *, event_id: int) -> EventCard | None:
    """The event's own page (/events/<id>): the card as on /events, with every name. Two queries."""
    event = _annotated(user).filter(pk=event_id).first()
    if event is None:
        return None
    return _with_names(_cards([event]), limit=None)[0]


@dataclass(frozen=True)
class EventLists:
    """An event's lists with names, for the organiser (/admin/events/<id> and its CSV/Excel): the participants,
    the waitlist and the guests (who signed up through the guest link, without an account)."""

    participants: list[EventParticipant]
    waitlist: list[EventWaitlistEntry]
    guests: list[EventGuest]


def event_lists(event: Event) -> EventLists:
    """Three queries whatever the size of the lists."""
    return EventLists(
        participants=list(event.participants.select_related("user").order_by("created_at", "pk")),
        waitlist=list(event.waitlist.select_related("user").order_by("id")),
        # Confirmed guests only: an address nobody confirmed (yet) is no one's name on a list.
        guests=list(event.guests.filter(confirm_by__isnull=True).order_by("created_at", "pk")),
    )


def event_list_rows(event: Event) -> list[tuple]:
    """The rows of the lists' CSV and Excel: (lijst, plek, naam, e-mailadres, aangemeld op); participants, the
    waitlist, then the guests."""
    lists = event_lists(event)
    rows: list[tuple] = [
        ("Deelnemer", place, participant.user.display_name, participant.user.email, participant.created_at)
        for place, participant in enumerate(lists.participants, start=1)
    ]
    rows += [
        ("Wachtlijst", place, entry.user.display_name, entry.user.email, entry.created_at)
        for place, entry in enumerate(lists.waitlist, start=1)
    ]
    rows += [
        ("Gast", place, guest.name, guest.email, guest.created_at) for place, guest in enumerate(lists.guests, start=1)
    ]
    return rows


def guest_places_left(event: Event) -> int | None:
    """Places still free for a guest (None: no maximum; the event's and its cap on guests), counted like the
    sign-up counts them, in one query."""
    if event.max_participants is None and event.guest_limit is None:
        return None
    counted = Event.objects.filter(pk=event.pk).annotate(**_counts(timezone.now())).first()
    if counted is None:
        return 0
    guests: int = counted.guest_total  # type: ignore[attr-defined]
    taken = counted.participant_total + guests + counted.offers_open  # type: ignore[attr-defined]
    pairs = ((event.guest_limit, guests), (event.max_participants, taken))
    return max(min(maximum - used for maximum, used in pairs if maximum is not None), 0)


def cards_with_names(events, *, limit: int | None = NAMES_ON_CARD) -> list[EventCard]:
    """The cards of `annotated_events_at_database_clock` rows (`events_from_rows`), with the first `limit`
    names of who goes: one query for the names."""
    return _with_names(_cards(events), limit=limit)
