"""The club feed is built from a declared list of sources. Each source is one kind of item (a shared dip, an
earned badge, an event, a weekly series (once, not per date), an afgelast event, a plonsafspraak, a club
message, a completed club challenge): the rows that may show,
the moment each one happened, and how it reads. A new kind is one more entry in SOURCES; paging, hiding and
Brrr! follow from it. The /club view declares the page-cache scope of every source's writes.

Privacy lives here, in each source's rows: a dip, a badge or a completed club challenge shows only while its
owner shares their dips with the club, a dip's photo only while that dip's photo is shared, and nothing an
admin hid shows at all. Plonsafspraken and club messages are on /samen and the dashboard for every member
already: they need no sharing choice.

Paging is by cursor: the moment, the kind and the id of the last item shown. Every source reads at most one
page beyond the cursor in one query, so a page costs one query per source at any club size.
"""

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from apps.challenges.models import ClubChallengeEntry, Dip, UserBadge
from apps.core.formatting import dutch_date
from apps.core.numbers import whole_number
from apps.events.models import Event, EventSeries
from apps.events.series_selectors import series_label
from apps.notifications.models import ClubMessage
from apps.together.models import Meetup

from .models import HiddenItem

PAGE_SIZE = 20
# A plonsafspraak shows while it is still to come and for a week after its time: then it is history.
MEETUP_SHOWN_FOR = datetime.timedelta(days=7)


@dataclass(frozen=True)
class FeedItem:
    kind: str
    object_id: int
    at: datetime.datetime
    owner_id: int | None  # who hears about a Brrr! on it; None for the club's own items (events)
    actor: str  # the member's name, or "" for the club's own items
    text: str
    photo_url: str = ""
    link: str = ""
    body: str = ""  # a club message's text under its title

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.object_id}"

    @property
    def sort_key(self) -> tuple[datetime.datetime, str, int]:
        return (self.at, self.kind, self.object_id)


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: after the item with this moment, kind and id (newest first)."""

    at: datetime.datetime
    kind: str
    object_id: int

    def encode(self) -> str:
        micros = int(self.at.timestamp()) * 1_000_000 + self.at.microsecond
        return f"{micros}.{self.kind}.{self.object_id}"


def cursor_parse(text: str | None) -> Cursor | None:
    """A cursor from the query string; None (the first page) for anything that is not one."""
    parts = (text or "").split(".")
    if len(parts) != 3 or parts[1] not in SOURCES:
        return None
    micros, object_id = whole_number(parts[0]), whole_number(parts[2])
    if micros is None or object_id is None:
        return None
    try:
        at = datetime.datetime.fromtimestamp(micros // 1_000_000, tz=datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return Cursor(at=at.replace(microsecond=micros % 1_000_000), kind=parts[1], object_id=object_id)


@dataclass(frozen=True)
class FeedSource:
    kind: str
    time_field: str
    rows: Callable[[], QuerySet]  # the rows that may show to members, with what `item` reads joined in
    item: Callable[[object], FeedItem]

    def visible(self) -> QuerySet:
        hidden = HiddenItem.objects.filter(kind=self.kind, object_id=OuterRef("pk"))
        return self.rows().filter(~Exists(hidden))

    def before(self, cursor: Cursor | None, limit: int) -> list[FeedItem]:
        rows = self.visible()
        if cursor is not None:
            rows = rows.filter(_before(self.time_field, self.kind, cursor))
        rows = rows.order_by(F(self.time_field).desc(), "-pk")[:limit]
        return [self.item(row) for row in rows]

    def shareable(self, object_id: int) -> bool:
        """The item may show to members (shared, active), hidden by an admin or not."""
        return self.rows().filter(pk=object_id).exists()

    def one(self, object_id: int) -> FeedItem | None:
        row = self.visible().filter(pk=object_id).first()
        return None if row is None else self.item(row)


def _before(time_field: str, kind: str, cursor: Cursor) -> Q:
    """Items of `kind` that come after the cursor in the feed's order (moment, kind, id; newest first)."""
    earlier = Q(**{f"{time_field}__lt": cursor.at})
    same_moment = Q(**{time_field: cursor.at})
    if kind < cursor.kind:
        return earlier | same_moment
    if kind > cursor.kind:
        return earlier
    return earlier | (same_moment & Q(pk__lt=cursor.object_id))


def _temperature(value: Decimal | None) -> str:
    if value is None:
        return ""
    text = f"{value.normalize():f}" if value == value.to_integral() else f"{value:.1f}"
    return text.replace(".", ",") + " °C"


# --- the sources ------------------------------------------------------------------------------------------


def _shared_dips() -> QuerySet:
    return Dip.objects.filter(user__is_active=True, user__club_sharing__share_dips=True).select_related("user")


def _dip_item(dip) -> FeedItem:
    name = dip.user.display_name
    text = f"{name} plonste" + (f" in {dip.spot}" if dip.spot else "")
    temperature = _temperature(dip.water_temperature)
    if temperature:
        text += f" · {temperature}"
    photo = reverse("club_photo", args=[dip.pk]) if dip.share_photo and dip.photo else ""
    return FeedItem("dip", dip.pk, dip.created_at, dip.user_id, name, text, photo_url=photo)


def _shared_badges() -> QuerySet:
    return UserBadge.objects.filter(user__is_active=True, user__club_sharing__share_dips=True).select_related(
        "user", "badge"
    )


def _badge_item(award) -> FeedItem:
    name = award.user.display_name
    text = f"{name} verdiende de badge {award.badge.name}"
    return FeedItem("badge", award.pk, award.earned_at, award.user_id, name, text)


def _events() -> QuerySet:
    """An event on its own: a weekly series is one item of its own (`_series`), not one per date."""
    return Event.objects.filter(is_active=True, series__isnull=True)


def _event_item(event) -> FeedItem:
    when = dutch_date(timezone.localtime(event.event_date).date())
    text = f"Nieuw event: {event.title} op {when}" + (f" in {event.location}" if event.location else "")
    return FeedItem(
        "event", event.pk, event.created_at, None, "", text, link=reverse("together") + f"#event-{event.pk}"
    )


def _series() -> QuerySet:
    """A weekly series, once ("Elke zondag tot 28 februari: Zondagduik"), while a date of it goes ahead; read
    from its first such date (title, place, weekday) in the same query."""
    dates = Event.objects.filter(series_id=OuterRef("pk"), is_active=True).order_by("event_date", "pk")
    return EventSeries.objects.filter(Exists(dates)).annotate(
        first_id=Subquery(dates.values("pk")[:1]),
        first_date=Subquery(dates.values("event_date")[:1]),
        title=Subquery(dates.values("title")[:1]),
        location=Subquery(dates.values("location")[:1]),
    )


def _series_item(series) -> FeedItem:
    label = series_label(first=series.first_date, until=series.repeat_until)
    text = f"{label}: {series.title}" + (f" in {series.location}" if series.location else "")
    return FeedItem(
        "series", series.pk, series.created_at, None, "", text, link=reverse("event", args=[series.first_id])
    )


def _cancellations() -> QuerySet:
    """An afgelast event, at the moment it was called off. Dates of a series called off together ("dit event en
    de volgende") are one item, shown from the first of them."""
    together = Event.objects.filter(
        series_id=OuterRef("series_id"), series__isnull=False, cancelled_at=OuterRef("cancelled_at")
    )
    earlier = together.filter(
        Q(event_date__lt=OuterRef("event_date")) | Q(event_date=OuterRef("event_date"), pk__lt=OuterRef("pk"))
    )
    counted = together.order_by().values("series_id").annotate(total=Count("pk")).values("total")
    return (
        Event.objects.filter(cancelled_at__isnull=False)
        .filter(~Exists(earlier))
        .annotate(dates_together=Coalesce(Subquery(counted, output_field=IntegerField()), 1))
    )


def _cancellation_item(event) -> FeedItem:
    when = dutch_date(timezone.localtime(event.event_date).date())
    if event.dates_together > 1:
        text = f"Afgelast: {event.title}, {event.dates_together} data vanaf {when}"
    else:
        text = f"Afgelast: {event.title} op {when}"
    return FeedItem(
        "cancelled",
        event.pk,
        event.cancelled_at,
        None,
        "",
        text,
        link=reverse("event", args=[event.pk]),
        body=event.cancel_reason,
    )


def _meetups() -> QuerySet:
    """Plonsafspraken to come or of the last week, not cancelled, by a member still with us. They are on /samen
    for every member already: no sharing choice. Shown at the moment they were proposed."""
    return Meetup.objects.filter(
        cancelled_at__isnull=True,
        proposer__is_active=True,
        starts_at__gte=timezone.now() - MEETUP_SHOWN_FOR,
    ).select_related("proposer")


def _meetup_item(meetup) -> FeedItem:
    name = meetup.proposer.display_name
    starts = timezone.localtime(meetup.starts_at)
    text = f"{name} stelt voor: samen plonsen op {dutch_date(starts.date())} om {starts:%H:%M}, {meetup.place}"
    return FeedItem("meetup", meetup.pk, meetup.created_at, meetup.proposer_id, name, text, link=reverse("together"))


def _club_messages() -> QuerySet:
    return ClubMessage.objects.all()


def _club_message_item(message) -> FeedItem:
    return FeedItem(
        "message", message.pk, message.created_at, None, "", f"Clubbericht: {message.title}", body=message.body
    )


def _completed_club_challenges() -> QuerySet:
    """A club challenge a member completed: like an earned badge, only while the member shares their dips."""
    return ClubChallengeEntry.objects.filter(
        completed_at__isnull=False, user__is_active=True, user__club_sharing__share_dips=True
    ).select_related("user", "club_challenge")


def _club_challenge_item(entry) -> FeedItem:
    name = entry.user.display_name
    text = f"{name} voltooide de clubchallenge {entry.club_challenge.name}"
    return FeedItem("clubchallenge", entry.pk, entry.completed_at, entry.user_id, name, text)


SOURCES: dict[str, FeedSource] = {
    source.kind: source
    for source in (
        FeedSource("dip", "created_at", _shared_dips, _dip_item),
        FeedSource("badge", "earned_at", _shared_badges, _badge_item),
        FeedSource("event", "created_at", _events, _event_item),
        FeedSource("series", "created_at", _series, _series_item),
        FeedSource("cancelled", "cancelled_at", _cancellations, _cancellation_item),
        FeedSource("meetup", "created_at", _meetups, _meetup_item),
        FeedSource("message", "created_at", _club_messages, _club_message_item),
        FeedSource("clubchallenge", "completed_at", _completed_club_challenges, _club_challenge_item),
    )
}


def feed_items(*, cursor: Cursor | None = None, limit: int = PAGE_SIZE) -> tuple[list[FeedItem], Cursor | None]:
    """One page of the feed, newest first, and the cursor of the next page (None at the end)."""
    found = [item for source in SOURCES.values() for item in source.before(cursor, limit + 1)]
    found.sort(key=lambda item: item.sort_key, reverse=True)
    page = found[:limit]
    more = len(found) > limit
    last = page[-1] if page and more else None
    return page, (Cursor(last.at, last.kind, last.object_id) if last is not None else None)


def feed_item_shareable(*, kind: str, object_id: int) -> bool:
    source = SOURCES.get(kind)
    return source is not None and source.shareable(object_id)


def feed_item(*, kind: str, object_id: int) -> FeedItem | None:
    """The item as members see it now, or None when it does not show (unknown, not shared, hidden)."""
    source = SOURCES.get(kind)
    return None if source is None else source.one(object_id)
