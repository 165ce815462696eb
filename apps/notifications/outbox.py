"""The one delivery path of both outboxes (`Mail`, `Notice`: models.Delivery): claim -> send -> record -> recover.

- claim: one short transaction takes the due rows no other run has (skip_locked) and marks them 'sending'
  under the run's claim token (claims.claim_token), attempts + 1; the row lock ends with it.
- send: the caller's (SMTP in services/delivery.py, Web Push in push.py), with no row lock or transaction held.
- record: one short UPDATE, guarded by status 'sending' and the run's token: a claim recovery took back (or a
  row deleted meanwhile) is not written over.
- recover: claims whose run is gone (its advisory lock free: the worker died, however) or older than
  STUCK_AFTER are queued again, or given up once claimed as often as the tries allow; rows queued longer than
  STUCK_AFTER that no task took are queued again, at most once per STUCK_AFTER. Safe beside live runs and
  idempotent: every write is guarded by its status, and a row queued twice is claimed once.

Only a message the mail server or push service took just before its worker died can go twice.

An `Outbox` says what differs between the two tables; the state machine is written once, here.
"""

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from .claims import RETRY_DELAYS, claim_owner_alive, claims_watch
from .models import Mail, Notice
from .queueing import mails_enqueue, notices_enqueue

# The status codes the path moves rows between: both tables' Status choices have them.
QUEUED, SENDING, SENT, FAILED = "queued", "sending", "sent", "failed"
GIVEN_UP = "niet bezorgd"
# A failed mail is tried again by the cron command (services/delivery.py), at most this often in all.
MAX_ATTEMPTS = 5
# Notices per task when recovered ones are queued again.
NOTICES_PER_RECOVERY_TASK = 500


def _always(now: datetime.datetime) -> Q:
    return Q()


@dataclass(frozen=True)
class Outbox:
    model: Any  # a models.Delivery subclass
    # Queues rows again (in the caller's transaction): their delivery tasks.
    enqueue: Callable[[list[int]], None]
    # Which rows recovery finds waiting too long, given the cutoff (beside status `waiting`).
    waiting_since: Callable[[datetime.datetime], Q]
    # A row claimed this often is given up by recovery instead of queued again.
    max_claims: int
    # The statuses a run may claim, and which of them recovery looks at for rows no task took.
    claimable: Sequence[str] = (QUEUED,)
    # Which claimable rows are due, given now.
    due: Callable[[datetime.datetime], Q] = _always
    # The field recovery stamps on a row it queues again (so a waiting one goes at most once per STUCK_AFTER).
    requeued_mark: str = "updated_at"
    # A field every write of this path stamps with its time (Mail.updated_at), if the table has one.
    stamp: str | None = None
    # What a row given up forgets (a reset key lives no longer than it must).
    forget: dict[str, Any] = field(default_factory=dict)
    # Loaded with each claimed row: what its sending reads.
    related: Sequence[str] = ()
    # Called in the claim's transaction when it took rows (the notices' check-up, claims.claims_watch).
    on_claim: Callable[[], None] | None = None
    # Rows per recovery transaction.
    recovery_batch: int = 1000

    def _stamped(self, now: datetime.datetime, values: dict[str, Any]) -> dict[str, Any]:
        return {**values, self.stamp: now} if self.stamp else values

    def claim(self, ids: list[int], token: int, now: datetime.datetime | None = None) -> list:
        """One short transaction: the due rows among these that no one else has, marked 'sending' as this run's.
        Returns them (with `related` loaded), in id order."""
        now = now or timezone.now()
        rows = self.model.objects
        with transaction.atomic():
            # skip_locked: a row another run is claiming right now is that run's (a row queued twice).
            ids = list(
                rows.select_for_update(skip_locked=True)
                .filter(self.due(now), pk__in=ids, status__in=self.claimable)
                .values_list("pk", flat=True)
            )
            values = {"status": SENDING, "claim_token": token, "claimed_at": now, "attempts": F("attempts") + 1}
            rows.filter(pk__in=ids).update(**self._stamped(now, values))
            if ids and self.on_claim is not None:
                self.on_claim()  # in the claim's transaction: a worker killed after it still leaves it
        return list(rows.select_related(*self.related).filter(pk__in=ids, claim_token=token).order_by("pk"))

    def record(self, row, token: int, status: str, **values: Any) -> bool:
        """One short UPDATE: the outcome, only while the claim is still this run's. False when it is not (taken
        back by recovery, whose run records it) or the row is gone."""
        now = timezone.now()
        values |= {"status": status, "claim_token": None, "claimed_at": None}
        if status == SENT:
            values["sent_at"] = now
        mine = self.model.objects.filter(pk=row.pk, status=SENDING, claim_token=token)
        return bool(mine.update(**self._stamped(now, values)))

    def recover(self, *, now: datetime.datetime | None = None) -> int:
        """Queue again what delivery runs left behind (see the module's text). Returns how many rows."""
        now = now or timezone.now()
        cutoff = now - datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)
        rows = self.model.objects
        since: dict[int | None, datetime.datetime] = {}
        for token, claimed_at in rows.filter(status=SENDING).values_list("claim_token", "claimed_at"):
            since[token] = min(claimed_at or cutoff, since.get(token, claimed_at or cutoff))
        dead = [t for t, at in since.items() if t is not None and (at <= cutoff or not claim_owner_alive(t))]
        with transaction.atomic():
            # skip_locked: two recoveries at once split the work instead of both taking every row.
            orphan_ids = list(
                rows.select_for_update(skip_locked=True)
                .filter(Q(claim_token__in=dead) | Q(claim_token__isnull=True), status=SENDING)
                .order_by("pk")
                .values_list("pk", flat=True)[: self.recovery_batch]
            )
            released = {"claim_token": None, "claimed_at": None}
            rows.filter(pk__in=orphan_ids, attempts__gte=self.max_claims).update(
                **self._stamped(now, {"status": FAILED, "last_error": GIVEN_UP, **released, **self.forget})
            )
            requeued = rows.filter(pk__in=orphan_ids, status=SENDING)
            orphan_ids = list(requeued.values_list("pk", flat=True))
            requeued.update(**self._stamped(now, {"status": QUEUED, **released}) | {self.requeued_mark: now})
            waiting_ids = list(
                rows.select_for_update(skip_locked=True)
                .filter(self.waiting_since(cutoff), status__in=self.claimable)
                .order_by("pk")
                .values_list("pk", flat=True)[: self.recovery_batch]
            )
            rows.filter(pk__in=waiting_ids).update(**{self.requeued_mark: now})
            ids = sorted(orphan_ids + waiting_ids)
            self.enqueue(ids)
        return len(ids)


MAILS = Outbox(
    model=Mail,
    enqueue=mails_enqueue,
    waiting_since=lambda cutoff: Q(updated_at__lte=cutoff),
    max_claims=MAX_ATTEMPTS,
    stamp="updated_at",
    forget={"body_text": "", "body_html": ""},
    related=("user", "invitation__invited_by", "email_address"),
)

NOTICES = Outbox(
    model=Notice,
    enqueue=lambda ids: notices_enqueue(ids, per_task=NOTICES_PER_RECOVERY_TASK),
    # A notice has no updated_at: claimed_at on a queued one says when it was last queued again.
    waiting_since=lambda cutoff: Q(send_after__lte=cutoff) & (Q(claimed_at__isnull=True) | Q(claimed_at__lte=cutoff)),
    max_claims=len(RETRY_DELAYS) + 1,
    claimable=(QUEUED, Notice.Status.RETRY),
    due=lambda now: Q(send_after__lte=now),
    requeued_mark="claimed_at",
    related=("user",),
    on_claim=claims_watch,
    recovery_batch=5000,
)
