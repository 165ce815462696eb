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
from apps.events.models import EventParticipant
from apps.notifications.models import Mail
from apps.notifications.services import mails_recover_stuck, mails_retry_failed, member_mail_queue

NUDGE_AFTER_DAYS = 14
# Reminders for tomorrow's events go out from this hour on (local time), not at a cron run just after midnight.
REMINDER_FROM_HOUR = 9


@dataclass(frozen=True)
class ScheduledRun:
    reminders: int
    nudges: int
    retried: int
    recovered: int = 0  # mails and tasks a dead worker left behind, queued again


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
        mail = member_mail_queue(
            kind=Mail.Kind.EVENT_REMINDER,
            user=participation.user,
            event_id=participation.event_id,
            dedupe_key=f"event-reminder:{participation.event_id}:{participation.user_id}",
        )
        queued += mail is not None
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
        mail = member_mail_queue(
            kind=Mail.Kind.DIP_NUDGE, user=card.user, dedupe_key=f"dip-nudge:{card.user_id}:{last_activity.isoformat()}"
        )
        queued += mail is not None
    return queued


def scheduled_mails_send(*, now: datetime.datetime | None = None) -> ScheduledRun:
    now = now or timezone.now()
    return ScheduledRun(
        reminders=event_reminders_queue(now=now),
        nudges=dip_nudges_queue(now=now),
        retried=mails_retry_failed(now=now),
        recovered=stuck_tasks_requeue(now=now) + mails_recover_stuck(now=now),
    )
