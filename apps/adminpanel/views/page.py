from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from apps.accounts.access import admin_required
from apps.audit.actions import AuditAction
from apps.core.errors import error_response
from apps.core.page_cache import CATALOGUE, CLUB, Page, cached_page
from apps.shipping.selectors import physical_counts

from ..csv_export import MESSAGE_NO_SUBSCRIBERS, subscribers_csv, subscribers_filename
from ..insights import club_figures
from ..refusals import AdminRefusal
from ..selectors import admin_stats_payload, subscriber_rows
from .audited import exported


def _today(request) -> tuple:
    return (timezone.localdate(),)


@admin_required
@require_safe
@cached_page(CLUB, CATALOGUE, template="adminpanel/admin.html", vary=_today)
def admin_page(request):
    """Cached per admin, per day (the charts end today) and per version of the club's data: any change to a
    figure on it declares the club scope."""
    stats, insights = club_figures(today=timezone.localdate())
    islands = {
        "currentUserId": request.user.pk,
        "stats": admin_stats_payload(stats),
        "endpoints": {
            "newsletterExport": reverse("adminpanel_newsletter_export"),
            "photos": reverse("adminpanel_photos"),
            "invitations": reverse("adminpanel_invitations"),
            "invitationCreate": reverse("adminpanel_invitation_create"),
            "invitationBulk": reverse("adminpanel_invitation_bulk"),
            "invitationDelete": reverse("adminpanel_invitation_delete", args=[0]).replace("/0/", "/{id}/"),
            "invitationResend": reverse("adminpanel_invitation_resend", args=[0]).replace("/0/", "/{id}/"),
            "users": reverse("adminpanel_users"),
            "userDelete": reverse("adminpanel_user_delete", args=[0]).replace("/0/", "/{id}/"),
            "userOrganiser": reverse("adminpanel_user_organiser", args=[0]).replace("/0/", "/{id}/"),
        },
    }
    context = {
        "stats": stats,
        "islands": islands,
        "insights": insights,
        "physical_counts": physical_counts(),
    }
    return Page(context)


@admin_required
@require_safe
def newsletter_export(request):
    rows = list(subscriber_rows())
    if not rows:
        if "application/json" in request.headers.get("Accept", ""):
            # The island's export button stays on the page and shows the message itself.
            return error_response(MESSAGE_NO_SUBSCRIBERS, code=AdminRefusal.NO_SUBSCRIBERS, status=404)
        messages.error(request, MESSAGE_NO_SUBSCRIBERS)
        return redirect("adminpanel")
    exported(request, AuditAction.SUBSCRIBERS_EXPORTED, len(rows))
    response = HttpResponse(subscribers_csv(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{subscribers_filename()}"'
    response["Cache-Control"] = "private, no-store"
    return response
