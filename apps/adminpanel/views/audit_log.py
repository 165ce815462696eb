"""/admin/logboek/: the audit log of admin and organiser actions, newest first, 50 a page, filtered by action
and by who did it. Read-only: the app has no way to change a row (apps.audit)."""

from django.conf import settings
from django.shortcuts import render
from django.views.decorators.http import require_safe

from apps.accounts.access import admin_required
from apps.accounts.models import User
from apps.audit.actions import AuditAction
from apps.audit.models import AuditEntry
from apps.core.numbers import whole_number

PAGE_SIZE = 50


@admin_required
@require_safe
def audit_log(request):
    action = request.GET.get("actie", "")
    action = action if action in AuditAction.values else ""
    actor_id = whole_number(request.GET.get("wie", ""))
    before = whole_number(request.GET.get("voor", ""))
    entries = AuditEntry.objects.all()
    if action:
        entries = entries.filter(action=action)
    if actor_id is not None:
        entries = entries.filter(actor_id=actor_id)
    if before is not None:
        entries = entries.filter(id__lt=before)
    # One more than a page: whether there is a next one, in the same query.
    rows = list(entries.order_by("-id")[: PAGE_SIZE + 1])
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    # Who can appear: the holders of a role (a handful); the filter needs no scan of the log.
    actors = User.objects.filter(roles__isnull=False).distinct().order_by("email").values("pk", "email")
    context = {
        "entries": rows,
        "actions": AuditAction.choices,
        "actors": actors,
        "action": action,
        "actor_id": actor_id,
        "next_before": rows[-1].pk if more else None,
        "keep_days": settings.AUDIT_KEEP_DAYS,
    }
    return render(request, "adminpanel/audit_log.html", context)
