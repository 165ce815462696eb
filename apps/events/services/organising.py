"""Organising events on /admin: make one or a weekly series, edit one or this-and-following, call off."""

import datetime
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record
from apps.core.formatting import dutch_date
from apps.core.page_cache import EVENTS, pages_changed

from .. import notices
from ..models import (
    CANCEL_REASON_MAX_LENGTH,
    LOCATION_MAX_LENGTH,
    TITLE_MAX_LENGTH,
    Event,
    EventParticipant,
    EventSeries,
)
from ..refusals import EventRefusal
from .common import (
    MESSAGE_FAILED,
    MESSAGE_PAST,
    EventError,
    _offers_refresh,
)

# --- Organising events on /admin: make one or a weekly series, edit one or this-and-following, call off -------

SERIES_MAX_WEEKS = 53  # a year of weekly swims, the first one included

MESSAGE_TITLE_REQUIRED = "Vul een titel in."
MESSAGE_TITLE_TOO_LONG = f"De titel mag hoogstens {TITLE_MAX_LENGTH} tekens zijn."
MESSAGE_LOCATION_TOO_LONG = f"De plek mag hoogstens {LOCATION_MAX_LENGTH} tekens zijn."
MESSAGE_START_IN_PAST = "Kies een datum en tijd in de toekomst."
MESSAGE_MAXIMUM_TOO_LOW = "Het maximum is minstens 1 (of laat het leeg voor geen maximum)."
MESSAGE_GUEST_LIMIT_TOO_LOW = "Het maximum aantal gasten is minstens 1 (of laat het leeg voor geen apart maximum)."
MESSAGE_MAXIMUM_BELOW_PARTICIPANTS = (
    "{title} op {date} heeft al {count} deelnemers: het maximum kan niet lager dan {count}."
)
MESSAGE_REPEAT_BEFORE_START = "Kies bij Herhaal elke week tot een datum op of na de eerste datum."
MESSAGE_SERIES_TOO_LONG = f"Een reeks duurt hoogstens {SERIES_MAX_WEEKS} weken. Kies een eerdere einddatum."
MESSAGE_CANCELLED = "Dit event is afgelast. Een afgelast event pas je niet meer aan."
MESSAGE_ALREADY_CANCELLED = "Dit event is al afgelast."
MESSAGE_CANCEL_REASON_REQUIRED = "Vul een reden in: die krijgen de deelnemers te lezen."
MESSAGE_CANCEL_REASON_TOO_LONG = f"De reden mag hoogstens {CANCEL_REASON_MAX_LENGTH} tekens zijn."
MESSAGE_CREATED = "Het event is aangemaakt."
MESSAGE_SERIES_CREATED = "De reeks is aangemaakt: {count} events, elke week tot en met {until}."
MESSAGE_UPDATED = "Het event is opgeslagen."
MESSAGE_UPDATED_FOLLOWING = "{count} events van de reeks zijn opgeslagen."
MESSAGE_EVENT_CANCELLED = "Het event is afgelast."
MESSAGE_EVENTS_CANCELLED = "{count} events van de reeks zijn afgelast."
MESSAGE_NOTIFIED = " {count} deelnemer(s), wachtenden en gasten krijgen bericht."


@dataclass(frozen=True)
class EventDetails:
    """What the organiser fills in on /admin: the same for one event and for every event of a series."""

    title: str
    starts_at: datetime.datetime
    location: str = ""
    description: str = ""
    max_participants: int | None = None
    # Open voor gasten: a public link lets guests without an account sign up (apps.events.links.guest_link_url).
    open_for_guests: bool = False
    # The most guests the event takes (within max_participants); None: no cap of its own. Guests already signed
    # up keep their place when it is lowered.
    guest_limit: int | None = None

    def check(self, *, now: datetime.datetime) -> None:
        if not self.title.strip():
            raise EventError(MESSAGE_TITLE_REQUIRED, code=EventRefusal.TITLE_REQUIRED, status=400)
        if len(self.title.strip()) > TITLE_MAX_LENGTH:
            raise EventError(MESSAGE_TITLE_TOO_LONG, code=EventRefusal.TITLE_TOO_LONG, status=400)
        if len(self.location.strip()) > LOCATION_MAX_LENGTH:
            raise EventError(MESSAGE_LOCATION_TOO_LONG, code=EventRefusal.LOCATION_TOO_LONG, status=400)
        if self.max_participants is not None and self.max_participants < 1:
            raise EventError(MESSAGE_MAXIMUM_TOO_LOW, code=EventRefusal.MAXIMUM_TOO_LOW, status=400)
        if self.guest_limit is not None and self.guest_limit < 1:
            raise EventError(MESSAGE_GUEST_LIMIT_TOO_LOW, code=EventRefusal.GUEST_LIMIT_TOO_LOW, status=400)
        if self.starts_at <= now:
            raise EventError(MESSAGE_START_IN_PAST, code=EventRefusal.START_IN_PAST, status=400)

    def apply(self, event: Event, *, starts_at: datetime.datetime) -> None:
        event.title = self.title.strip()
        event.event_date = starts_at
        event.location = self.location.strip()
        event.description = self.description.strip()
        event.max_participants = self.max_participants
        event.open_for_guests = self.open_for_guests
        event.guest_limit = self.guest_limit
        if self.open_for_guests and not event.guest_token:
            # Set here as well as in Event.save(): a series is written with bulk_create, which skips save().
            event.guest_token = secrets.token_urlsafe(24)


@dataclass(frozen=True)
class EventChange:
    """What event_update or event_cancel did: the events written and how many notices went out."""

    events: list[Event]
    notified: int = 0
    offered: int = 0  # places offered to the waitlist (a raised maximum)


def _weekly(start: datetime.datetime, weeks: int) -> datetime.datetime:
    """The same wall-clock time `weeks` later in Amsterdam: "iedere zondag om 11 uur" stays 11 uur across
    the change to and from summer time."""
    local = timezone.localtime(start).replace(tzinfo=None)
    return timezone.make_aware(local + datetime.timedelta(weeks=weeks))


def _wall_clock_shift(event: Event, shift: datetime.timedelta) -> datetime.datetime:
    local = timezone.localtime(event.event_date).replace(tzinfo=None)
    return timezone.make_aware(local + shift)


def event_create(*, details: EventDetails, now: datetime.datetime | None = None) -> Event:
    """One event, made on /admin (Nieuw event without a repeat)."""
    details.check(now=now or timezone.now())
    with transaction.atomic():
        pages_changed(EVENTS)
        event = Event()
        details.apply(event, starts_at=details.starts_at)
        event.save()
        return event


def event_series_create(
    *, details: EventDetails, repeat_until: datetime.date, now: datetime.datetime | None = None
) -> list[Event]:
    """Nieuw event with "Herhaal elke week tot {datum}": one event a week from the first date up to and
    including `repeat_until`, at the same local time, all in one series."""
    details.check(now=now or timezone.now())
    first_day = timezone.localdate(details.starts_at)
    if repeat_until < first_day:
        raise EventError(MESSAGE_REPEAT_BEFORE_START, code=EventRefusal.REPEAT_BEFORE_START, status=400)
    weeks = (repeat_until - first_day).days // 7 + 1
    if weeks > SERIES_MAX_WEEKS:
        raise EventError(MESSAGE_SERIES_TOO_LONG, code=EventRefusal.SERIES_TOO_LONG, status=400)
    with transaction.atomic():
        pages_changed(EVENTS)
        series = EventSeries.objects.create(repeat_until=repeat_until)
        events = []
        for week in range(weeks):
            event = Event(series=series)
            details.apply(event, starts_at=_weekly(details.starts_at, week))
            events.append(event)
        return Event.objects.bulk_create(events)


def _lock_for_organiser(*, event_id: int, following: bool, now: datetime.datetime) -> list[Event]:
    """The event (and with `following` the later events of its series that are not afgelast), locked in date
    order. Refused for an event that is past or afgelast."""
    event = Event.objects.select_for_update().filter(pk=event_id).first()
    if event is None:
        raise EventError(MESSAGE_FAILED, code=EventRefusal.EVENT_UNKNOWN, status=404)
    if event.is_cancelled:
        raise EventError(MESSAGE_CANCELLED, code=EventRefusal.CANCELLED)
    if event.event_date < now:
        raise EventError(MESSAGE_PAST, code=EventRefusal.PAST)
    if not following or event.series_id is None:
        return [event]
    later = (
        Event.objects.select_for_update()
        .filter(series_id=event.series_id, event_date__gt=event.event_date, cancelled_at__isnull=True)
        .exclude(pk=event.pk)
        .order_by("event_date", "pk")
    )
    return [event, *later]


def event_update(
    *, event_id: int, details: EventDetails, following: bool = False, now: datetime.datetime | None = None
) -> EventChange:
    """Edit one event, or with `following` this one and the later ones of its series: the title, place,
    description and maximum become the new ones, and the time moves by as much as this event's time moved
    (same wall clock, so every Sunday stays on its own Sunday). A new time or place is told to who signed up
    and who waits; a raised maximum hands places to the waitlist in order."""
    now = now or timezone.now()
    details.check(now=now)
    with transaction.atomic():
        pages_changed(EVENTS)
        events = _lock_for_organiser(event_id=event_id, following=following, now=now)
        first = events[0]
        shift = timezone.localtime(details.starts_at).replace(tzinfo=None) - timezone.localtime(
            first.event_date
        ).replace(tzinfo=None)
        counts = dict(
            EventParticipant.objects.filter(event__in=events)
            .order_by()
            .values("event")
            .annotate(total=Count("pk"))
            .values_list("event", "total")
        )
        notified = offered = 0
        for event in events:
            count = counts.get(event.pk, 0)
            if details.max_participants is not None and details.max_participants < count:
                raise EventError(
                    MESSAGE_MAXIMUM_BELOW_PARTICIPANTS.format(
                        title=event.title, date=dutch_date(timezone.localdate(event.event_date)), count=count
                    ),
                    code=EventRefusal.MAXIMUM_BELOW_PARTICIPANTS,
                    status=400,
                )
            before_date, before_location = event.event_date, event.location
            starts_at = details.starts_at if event is first else _wall_clock_shift(event, shift)
            if starts_at <= now:
                raise EventError(MESSAGE_START_IN_PAST, code=EventRefusal.START_IN_PAST, status=400)
            details.apply(event, starts_at=starts_at)
            moved = event.event_date != before_date or event.location != before_location
            if moved:
                event.moved_at = now  # one moment for the dates moved together: one feed item
            event.save()
            if moved:
                notified += notices.event_changed_notify(
                    event=event, previous_date=before_date, previous_location=before_location
                )
            offered += len(_offers_refresh(event))
        return EventChange(events=events, notified=notified, offered=offered)


def event_cancel(
    *,
    event_id: int,
    reason: str,
    following: bool = False,
    now: datetime.datetime | None = None,
    meta: AuditMeta | None = None,
) -> EventChange:
    """Afgelasten: the event (or this one and the later ones of its series) stays with its lists but is no
    longer active, and everyone on them hears it with the reason. Cancelling twice is refused: the second
    click on the button says so instead of mailing again."""
    now = now or timezone.now()
    reason = reason.strip()
    if not reason:
        raise EventError(MESSAGE_CANCEL_REASON_REQUIRED, code=EventRefusal.CANCEL_REASON_REQUIRED, status=400)
    if len(reason) > CANCEL_REASON_MAX_LENGTH:
        raise EventError(MESSAGE_CANCEL_REASON_TOO_LONG, code=EventRefusal.CANCEL_REASON_TOO_LONG, status=400)
    with transaction.atomic():
        pages_changed(EVENTS)
        try:
            events = _lock_for_organiser(event_id=event_id, following=following, now=now)
        except EventError as error:
            if error.code == EventRefusal.CANCELLED:
                raise EventError(MESSAGE_ALREADY_CANCELLED, code=EventRefusal.ALREADY_CANCELLED) from error
            raise
        notified = 0
        for event in events:
            event.is_active = False
            event.cancelled_at = now
            event.cancel_reason = reason
            event.save(update_fields=["is_active", "cancelled_at", "cancel_reason"])
            notified += notices.event_cancelled_notify(event=event)
        if meta is not None:  # an organiser's or admin's action: the audit log, in this transaction
            detail = f"{len(events)} events" if following else ""
            audit_record(
                meta=meta, action=AuditAction.EVENT_CANCELLED, target_type="event", target_id=event_id, detail=detail
            )
        return EventChange(events=events, notified=notified)
