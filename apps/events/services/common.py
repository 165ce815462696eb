"""Shared by the event services: messages, errors and the place/offer rules under the event's lock."""

import datetime
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.core.errors import DomainError

from ..models import (
    Event,
    EventParticipant,
    EventWaitlistEntry,
    guest_holds_place,
)
from ..notices import waitlist_offer_notice_withdraw, waitlist_offer_notify
from ..refusals import EventRefusal

MESSAGE_JOINED = "Je bent aangemeld voor dit event!"
MESSAGE_LEFT = "Je bent afgemeld voor dit event"
MESSAGE_DUPLICATE = "Je bent al aangemeld voor dit event"
MESSAGE_FAILED = "Er ging iets mis met de aanmelding"
MESSAGE_FULL = "Dit event is vol."
MESSAGE_PAST = "Dit event is al voorbij."
MESSAGE_INACTIVE = "Dit event gaat niet door of is niet meer beschikbaar."
MESSAGE_WAITLISTED = "Dit event is vol. Je staat op de wachtlijst (plek {position})."
MESSAGE_WAITLIST_POSITION = "Je staat op de wachtlijst (plek {position})"
MESSAGE_WAITLIST_LEFT = "Je staat niet meer op de wachtlijst"
MESSAGE_CALENDAR_RENEWED = "Je nieuwe agenda-link staat klaar. De oude link werkt niet meer."
MESSAGE_CALENDAR_CREATED = "Je agenda-link staat klaar."
MESSAGE_OFFER_TAKEN = "Top, je hebt de plek! Je bent aangemeld voor dit event."
MESSAGE_OFFER_DECLINED = "Jammer! De plek gaat naar de volgende op de wachtlijst."
MESSAGE_OFFER_EXPIRED = "Je aanbod is verlopen: de plek is naar de volgende op de wachtlijst gegaan."
MESSAGE_OFFER_NONE = "Je staat niet (meer) op de wachtlijst voor dit event."
MESSAGE_OFFER_NOT_YET = "Er is nog geen plek vrij voor je. Je krijgt bericht zodra dat zo is."


class EventError(DomainError):
    """A refused sign-up or cancellation; the message is Dutch and meant for the member."""

    status = 409


class EventAlreadyJoined(EventError):
    def __init__(self, message: str = MESSAGE_DUPLICATE):
        super().__init__(message, code=EventRefusal.ALREADY_JOINED)


class EventFull(EventError):
    def __init__(self, message: str = MESSAGE_FULL):
        super().__init__(message, code=EventRefusal.FULL)


class EventAlreadyWaitlisted(EventError):
    def __init__(self, position: int):
        self.position = position
        super().__init__(MESSAGE_WAITLIST_POSITION.format(position=position), code=EventRefusal.ALREADY_WAITLISTED)


@dataclass(frozen=True)
class SignUp:
    """The outcome of `event_sign_up`: a place, or a place in the queue (1 is next)."""

    participant: EventParticipant | None = None
    waitlist_position: int | None = None


class Left:
    """What `event_leave` gave up."""

    PLACE = "place"
    WAITLIST = "waitlist"


def _lock_upcoming_event(event_id: int) -> Event:
    event = Event.objects.select_for_update().filter(pk=event_id).first()
    if event is None:
        raise EventError(MESSAGE_FAILED, code=EventRefusal.EVENT_UNKNOWN)
    if not event.is_active:
        raise EventError(MESSAGE_INACTIVE, code=EventRefusal.INACTIVE)
    if event.event_date < timezone.now():
        raise EventError(MESSAGE_PAST, code=EventRefusal.PAST)
    return event


def _each_event_locked(rows: QuerySet) -> Iterator[Event]:
    """The events `rows` belong to, one by one, each locked in a transaction of its own around the caller's loop
    body. An event another run holds right now is skipped: the next run takes it (the cron jobs are idempotent)."""
    event_ids = list(rows.order_by("event_id").values_list("event_id", flat=True).distinct())
    for event_id in event_ids:
        with transaction.atomic():
            event = Event.objects.select_for_update(skip_locked=True).filter(pk=event_id).first()
            if event is not None:
                yield event


def _free_places(event: Event, *, now=None) -> int | None:
    """None: no maximum. Participants, guests (confirmed, or within the hold of their confirmation link) and the
    places held by open offers are taken."""
    if event.max_participants is None:
        return None
    now = now or timezone.now()
    guests = event.guests.filter(guest_holds_place(now)).count()
    taken = event.participants.count() + guests + event.waitlist.filter(offer_expires_at__gt=now).count()
    return max(event.max_participants - taken, 0)


def waitlist_position(entry: EventWaitlistEntry) -> int:
    return EventWaitlistEntry.objects.filter(event_id=entry.event_id, id__lte=entry.id).count()


def offer_deadline(event: Event, *, now) -> datetime.datetime:
    """WAITLIST_OFFER_HOURS from now, never at night (offer_morning), and never past the event's start (an event
    before 08:00 ends its offers at its start: a place is no use after that)."""
    return min(offer_morning(now + datetime.timedelta(hours=settings.WAITLIST_OFFER_HOURS)), event.event_date)


def offer_morning(deadline: datetime.datetime) -> datetime.datetime:
    """A deadline in the club's night (WAITLIST_OFFER_NIGHT_START to _END, local time: nobody answers a mail at
    03:09) moves to the night's end, the next morning. The morning is made in the club's zone (zoneinfo), so the
    night of a DST change ends at 08:00 local time all the same."""
    start, end = settings.WAITLIST_OFFER_NIGHT_START, settings.WAITLIST_OFFER_NIGHT_END
    if start == end:
        return deadline
    zone = timezone.get_default_timezone()
    local = deadline.astimezone(zone)
    wraps = start > end  # 22 to 8: the night spans midnight
    at_night = (local.hour >= start or local.hour < end) if wraps else start <= local.hour < end
    if not at_night:
        return deadline
    day = local.date() + datetime.timedelta(days=1) if wraps and local.hour >= start else local.date()
    return datetime.datetime.combine(day, datetime.time(end), tzinfo=zone)


def _offers_refresh(event: Event, *, now: datetime.datetime | None = None) -> list[EventWaitlistEntry]:
    """Under the event's lock: expired offers leave the waitlist (their mail, if still unsent, is withdrawn),
    and every free place is offered to the next one in line who has no offer yet, with a mail. One place,
    one open offer. Returns the new offers."""
    now = now or timezone.now()
    expired = list(event.waitlist.filter(offer_expires_at__lte=now).values_list("pk", "user_id"))
    if expired:
        EventWaitlistEntry.objects.filter(pk__in=[pk for pk, _ in expired]).delete()
        waitlist_offer_notice_withdraw(event_id=event.pk, user_ids=[user_id for _, user_id in expired])
    if not event.is_active or event.event_date <= now:
        return []
    free = _free_places(event, now=now)
    waiting = event.waitlist.filter(offer_expires_at__isnull=True).select_related("user").order_by("id")
    entries = list(waiting if free is None else waiting[:free])
    if not entries:
        return []
    deadline = offer_deadline(event, now=now)
    EventWaitlistEntry.objects.filter(pk__in=[entry.pk for entry in entries]).update(
        offered_at=now, offer_expires_at=deadline
    )
    for entry in entries:
        entry.offered_at, entry.offer_expires_at = now, deadline
        waitlist_offer_notify(entry=entry)
    return entries


def _moved(before: Event, after: Event) -> bool:
    return before.event_date != after.event_date or before.location != after.location
