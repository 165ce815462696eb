"""The club feed is built from a declared list of sources. Each source is one kind of item (a shared dip, an
earned badge, an event, a weekly series (once, not per date), an afgelast or moved event, a plonsafspraak, a club
message, a completed club challenge): the rows that may show, the moment each one happened, and how it reads
(feed_source.py: what a source is). A new kind is one more entry in SOURCES; paging, hiding and
Brrr! follow from it. The /club view declares the page-cache scope of every source's writes.

Privacy lives here, in each source's rows: a dip, a badge or a completed club challenge shows only while its
owner shares their dips with the club, a dip's photo only while that dip's photo is shared, and nothing an
admin hid shows at all. Plonsafspraken and club messages are on /samen and the dashboard for every member
already: they need no sharing choice.

Paging is by cursor: the moment, the kind and the id of the last item shown. Every source reads at most one
page beyond the cursor in one query, so a page costs one query per source at any club size; the first page,
the one every visit shows, is one query for all sources together.
"""

import datetime
from decimal import Decimal

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Now
from django.urls import reverse
from django.utils import timezone

from apps.challenges.models import ClubChallengeEntry, Dip, UserBadge
from apps.core.formatting import dutch_date
from apps.core.numbers import whole_number
from apps.events.models import Event, EventSeries
from apps.events.series_selectors import series_label
from apps.notifications.models import ClubMessage
from apps.together.models import Meetup

from .feed_source import Cursor, FeedItem, FeedSource
from .first_page import FirstPage

PAGE_SIZE = 20
# A plonsafspraak shows while it is still to come and for a week after its time: then it is history.
MEETUP_SHOWN_FOR = datetime.timedelta(days=7)


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


def _temperature(value: Decimal | None) -> str:
    if value is None:
        return ""
    text = f"{value.normalize():f}" if value == value.to_integral() else f"{value:.1f}"
    return text.replace(".", ",") + " °C"


# --- the sources ------------------------------------------------------------------------------------------


def _name(full_name: str) -> str:
    return full_name.strip() or "Zwemmer"  # User.display_name


DIP_COLUMNS = (
    "pk", "created_at", "user_id", "user__full_name", "spot", "water_temperature", "share_photo", "photo",
)  # fmt: skip


def _shared_dips() -> QuerySet:
    return Dip.objects.filter(user__is_active=True, user__club_sharing__share_dips=True)


def _dip_item(dip) -> FeedItem:
    name = _name(dip.user_full_name)
    text = f"{name} plonste" + (f" in {dip.spot}" if dip.spot else "")
    temperature = _temperature(dip.water_temperature)
    if temperature:
        text += f" · {temperature}"
    photo = reverse("club_photo", args=[dip.pk]) if dip.share_photo and dip.photo else ""
    return FeedItem("dip", dip.pk, dip.created_at, dip.user_id, name, text, photo_url=photo)


def _shared_badges() -> QuerySet:
    return UserBadge.objects.filter(user__is_active=True, user__club_sharing__share_dips=True)


def _badge_item(award) -> FeedItem:
    name = _name(award.user_full_name)
    text = f"{name} verdiende de badge {award.badge_name}"
    return FeedItem("badge", award.pk, award.earned_at, award.user_id, name, text)


def _events() -> QuerySet:
    """An event on its own: a weekly series is one item of its own (`_series`), not one per date."""
    return Event.objects.filter(is_active=True, series__isnull=True)


def _event_item(event) -> FeedItem:
    when = dutch_date(timezone.localtime(event.event_date).date())
    text = f"Nieuw event: {event.title} op {when}" + (f" in {event.location}" if event.location else "")
    return FeedItem("event", event.pk, event.created_at, None, "", text, link=reverse("event", args=[event.pk]))


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


def _moves() -> QuerySet:
    """An event whose time or place changed, at the moment it moved, while it still goes ahead. Dates of a series
    moved together ("dit event en de volgende") are one item, shown from the first of them."""
    together = Event.objects.filter(
        series_id=OuterRef("series_id"), series__isnull=False, moved_at=OuterRef("moved_at")
    )
    earlier = together.filter(
        Q(event_date__lt=OuterRef("event_date")) | Q(event_date=OuterRef("event_date"), pk__lt=OuterRef("pk"))
    )
    counted = together.order_by().values("series_id").annotate(total=Count("pk")).values("total")
    return (
        Event.objects.filter(moved_at__isnull=False, is_active=True, cancelled_at__isnull=True)
        .filter(~Exists(earlier))
        .annotate(dates_together=Coalesce(Subquery(counted, output_field=IntegerField()), 1))
    )


def _move_item(event) -> FeedItem:
    starts = timezone.localtime(event.event_date)
    where = f" in {event.location}" if event.location else ""
    if event.dates_together > 1:
        text = f"Verplaatst: {event.title}, {event.dates_together} data vanaf {dutch_date(starts.date())}{where}"
    else:
        text = f"Verplaatst: {event.title}, nu op {dutch_date(starts.date())} om {starts:%H:%M}{where}"
    return FeedItem("moved", event.pk, event.moved_at, None, "", text, link=reverse("event", args=[event.pk]))


def _meetups() -> QuerySet:
    """Plonsafspraken to come or of the last week, not cancelled, by a member still with us. They are on /samen
    for every member already: no sharing choice. Shown at the moment they were proposed. The week is counted
    by the database's clock, so the first page's query is the same on every render (a prepared query)."""
    return Meetup.objects.filter(
        cancelled_at__isnull=True,
        proposer__is_active=True,
        starts_at__gte=Now() - MEETUP_SHOWN_FOR,
    )


def _meetup_item(meetup) -> FeedItem:
    name = _name(meetup.proposer_full_name)
    starts = timezone.localtime(meetup.starts_at)
    text = f"{name} stelt voor: samen plonsen op {dutch_date(starts.date())} om {starts:%H:%M}, {meetup.place}"
    return FeedItem(
        "meetup", meetup.pk, meetup.created_at, meetup.proposer_id, name, text, link=reverse("meetup", args=[meetup.pk])
    )


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
    )


def _club_challenge_item(entry) -> FeedItem:
    name = _name(entry.user_full_name)
    text = f"{name} voltooide de clubchallenge {entry.club_challenge_name}"
    return FeedItem("clubchallenge", entry.pk, entry.completed_at, entry.user_id, name, text)


SOURCES: dict[str, FeedSource] = {
    source.kind: source
    for source in (
        FeedSource("dip", "created_at", _shared_dips, DIP_COLUMNS, _dip_item),
        FeedSource(
            "badge", "earned_at", _shared_badges, ("pk", "earned_at", "user_id", "user__full_name", "badge__name"),
            _badge_item,
        ),
        FeedSource(
            "event", "created_at", _events, ("pk", "created_at", "event_date", "title", "location"), _event_item
        ),
        FeedSource(
            "series", "created_at", _series,
            ("pk", "created_at", "repeat_until", "first_id", "first_date", "title", "location"), _series_item,
        ),
        FeedSource(
            "cancelled", "cancelled_at", _cancellations,
            ("pk", "cancelled_at", "event_date", "title", "cancel_reason", "dates_together"), _cancellation_item,
        ),
        FeedSource(
            "moved", "moved_at", _moves,
            ("pk", "moved_at", "event_date", "title", "location", "dates_together"), _move_item,
        ),
        FeedSource(
            "meetup", "created_at", _meetups,
            ("pk", "created_at", "proposer_id", "proposer__full_name", "starts_at", "place"), _meetup_item,
        ),
        FeedSource("message", "created_at", _club_messages, ("pk", "created_at", "title", "body"), _club_message_item),
        FeedSource(
            "clubchallenge", "completed_at", _completed_club_challenges,
            ("pk", "completed_at", "user_id", "user__full_name", "club_challenge__name"), _club_challenge_item,
        ),
    )
}  # fmt: skip


_FIRST_PAGE = FirstPage(SOURCES, limit=PAGE_SIZE + 1)


def feed_items(*, cursor: Cursor | None = None, limit: int = PAGE_SIZE) -> tuple[list[FeedItem], Cursor | None]:
    """One page of the feed, newest first, and the cursor of the next page (None at the end)."""
    if cursor is None and limit == PAGE_SIZE:
        found = _FIRST_PAGE.rows()
    else:
        found = [row for source in SOURCES.values() for row in source._sorted_rows(cursor, limit + 1)]  # noqa: SLF001
        found.sort(key=lambda row: row[0], reverse=True)
    page = [source._items([row])[0] for _key, source, row in found[:limit]]  # noqa: SLF001
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
