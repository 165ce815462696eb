"""Writing the audit log. `audit_record` runs inside the caller's transaction: the row stands or falls
with the action it records. The app never edits a row; `audit_prune` removes rows past AUDIT_KEEP_DAYS."""

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from .actions import AuditAction
from .models import AuditEntry


@dataclass(frozen=True)
class AuditMeta:
    """Who acts and from where: made from the request by the view (or for a command) and handed to the
    service that records the action."""

    actor_id: int | None
    actor_label: str
    ip: str | None = None

    @classmethod
    def from_request(cls, request) -> "AuditMeta":
        from allauth.account.adapter import get_adapter

        try:  # the client's address behind TRUSTED_PROXY_COUNT proxies, as the rate limits count it
            ip = get_adapter(request).get_client_ip(request)
        except PermissionDenied:
            ip = None
        user = request.user
        return cls(actor_id=user.pk, actor_label=user.email, ip=ip)

    @classmethod
    def command(cls, name: str) -> "AuditMeta":
        """The operator on the server (manage.py): no account, no address."""
        return cls(actor_id=None, actor_label=f"manage.py {name}")


def audit_record(
    *, meta: AuditMeta, action: AuditAction, target_type: str = "", target_id: int | None = None, detail: str = ""
) -> AuditEntry:
    """Record `action` in the caller's transaction (the caller owns it: outside one this is its own)."""
    with transaction.atomic():
        return AuditEntry.objects.create(
            action=action,
            actor_id=meta.actor_id,
            actor_label=meta.actor_label[:254],
            target_type=target_type,
            target_id=target_id,
            detail=detail[:100],
            ip=meta.ip,
        )


def audit_prune(*, now: datetime.datetime | None = None) -> int:
    """Remove the rows older than AUDIT_KEEP_DAYS. Idempotent; the scheduler calls `prune_audit_log`."""
    cutoff = (now or timezone.now()) - datetime.timedelta(days=settings.AUDIT_KEEP_DAYS)
    with transaction.atomic():
        deleted, _per_model = AuditEntry.objects.filter(at__lt=cutoff).delete()
    return deleted
