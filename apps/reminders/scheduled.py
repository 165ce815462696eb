"""Scheduled mails, run by the cron command `send_scheduled_mail`: the day-before event reminder and the
opt-in 14-day nudge. Each mail carries a key of what it is about; the unique key in the database makes
every run idempotent, also when two run at once."""

import datetime
import zoneinfo
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from apps.challenges.models import UserChallenge
from apps.core.background import stuck_tasks_requeue
from apps.core.formatting import clock_time, dutch_date
from apps.events.links import PLANS_URL
from apps.events.models import EventParticipant
from apps.events.notices import EVENT_REMINDER
from apps.events.services import guest_holds_expire, waitlist_offers_expire
from apps.notifications.notices import notice_send
from apps.notifications.services import mails_recover_stuck, mails_retry_failed, notices_recover_stuck

from .notices import DIP_NUDGE

NUDGE_AFTER_DAYS = 14
# Reminders for tomorrow's events go out from this hour on (local time), not at a cron run just after midnight.
REMINDER_FROM_HOUR = 9


@dataclass(frozen=True)
class ScheduledRun:
    reminders: int
    nudges: int
    retried: int
    recovered: int = 0  # mails, notices and tasks a dead worker (or a failed task) left behind, queued again
    offers_expired: int = 0  # waitlist offers that ran out; their places went to the next in line
    guest_holds_expired: int = 0  # guest sign-ups not confirmed in time; their places went to the waitlist


def _local(now: datetime.datetime) -> datetime.datetime:
    return now.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE))


def event_reminders_queue(*, now: datetime.datetime) -> int:
    local_now = _local(now)
    if local_now.hour < REMINDER_FROM_HOUR:
        return 0
    tomorrow = datetime.datetime.combine(
        local_now.date() + datetime.timedelta(days=1), datetime.time(), local_now.tzinfo
    )
    participations = EventParticipant.objects.filter(
        event__is_active=True,
        event__event_date__gte=tomorrow,
        event__event_date__lt=tomorrow + datetime.timedelta(days=1),
        user__is_active=True,
    ).select_related("event", "user")
    queued = 0
    for participation in participations:
        event = participation.event
        where = f" · {event.location}" if event.location else ""
        # By push or mail, as the member chose; the mail is the kind's own (apps/events/notices.py).
        sent = notice_send(
            kind=EVENT_REMINDER,
            user=participation.user,
            title=f"Morgen: {event.title}",
            body=f"{dutch_date(event.event_date)}, {clock_time(event.event_date)}{where}",
            url=PLANS_URL,
            event_id=participation.event_id,
            dedupe_key=f"event-reminder:{participation.event_id}:{participation.user_id}",
            now=now,
        )
        queued += sent is not None
    return queued


def dip_nudges_queue(*, now: datetime.datetime) -> int:
    """Members who asked for it, with a card in progress, whose last dip (or the start of the card, before
    the first dip) is 14 days or more ago. One nudge per quiet stretch: the key holds that last day."""
    today = _local(now).date()
    cards = (
        UserChallenge.objects.filter(
            is_active=True,
            completed_at__isnull=True,
            user__is_active=True,
            user__mail_preference__dip_nudge=True,
        )
        .annotate(last_dip=Max("dips__dip_date"))
        .select_related("user")
    )
    queued = 0
    for card in cards:
        last_activity = card.last_dip or _local(card.started_at).date()
        if (today - last_activity).days < NUDGE_AFTER_DAYS:
            continue
        sent = notice_send(
            kind=DIP_NUDGE,
            user=card.user,
            title="Al 14 dagen geen plons",
            body="Het water is koud en wacht op je! Zet je volgende plons op je stempelkaart.",
            url="/challenge",
            dedupe_key=f"dip-nudge:{card.user_id}:{last_activity.isoformat()}",
            now=now,
        )
        queued += sent is not None
    return queued


def scheduled_mails_send(*, now: datetime.datetime | None = None) -> ScheduledRun:
    now = now or timezone.now()
    # Holds and offers first: a place that runs out now is offered on (with its mail) in this same run.
    guest_holds_expired = guest_holds_expire(now=now)
    offers_expired = waitlist_offers_expire(now=now)
    return ScheduledRun(
        offers_expired=offers_expired,
        guest_holds_expired=guest_holds_expired,
        reminders=event_reminders_queue(now=now),
        nudges=dip_nudges_queue(now=now),
        retried=mails_retry_failed(now=now),
        recovered=stuck_tasks_requeue(now=now) + mails_recover_stuck(now=now) + notices_recover_stuck(now=now),
    )
