"""The member's calendar subscription and club-life settings: the feed behind a subscription link, its https and
webcal addresses, and the /account section 'Agenda-abonnement en herinneringen'."""

from dataclasses import dataclass

from django.db.models import Q
from django.urls import reverse

from apps.notifications.services import mail_preference_for

from .models import CalendarFeed, Event


def calendar_events_for_token(token: str) -> tuple[CalendarFeed, list[Event]] | None:
    """The feed behind a subscription link and the events its member joined: the active ones and the afgelast
    ones (which stay, as cancelled, so the member's calendar marks them off); None for an unknown link."""
    feed = CalendarFeed.objects.select_related("user").filter(token=token).first()
    if feed is None or not feed.user.is_active:
        return None
    events = list(
        Event.objects.filter(
            Q(is_active=True) | Q(cancelled_at__isnull=False), participants__user_id=feed.user_id
        ).order_by("event_date", "pk")
    )
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
