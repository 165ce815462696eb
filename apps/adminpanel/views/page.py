from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from apps.accounts.access import admin_required
from apps.accounts.services import CLUB
from apps.challenges.services.catalogue import CATALOGUE
from apps.core.errors import error_response
from apps.core.page_cache import Page, cached_page, shared_versions
from apps.shipping.selectors import physical_counts

from ..csv_export import MESSAGE_NO_SUBSCRIBERS, subscribers_csv, subscribers_filename
from ..insights import club_figures
from ..selectors import admin_stats_payload, subscriber_rows


@admin_required
@require_safe
def admin_page(request):
    """Cached per admin and per version of the club's data: any change to a figure on it is a new version
    (apps.accounts.services.club_changed)."""
    today = timezone.localdate()
    key = ("admin", request.user.pk, request.user.pages_version, today, *shared_versions(CLUB, CATALOGUE))
    return cached_page(request, key=key, template="adminpanel/admin.html", page=lambda: _admin_page(request, today))


def _admin_page(request, today) -> Page:
    stats, insights = club_figures(today=today)
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
            return error_response(MESSAGE_NO_SUBSCRIBERS, status=404)
        messages.error(request, MESSAGE_NO_SUBSCRIBERS)
        return redirect("adminpanel")
    response = HttpResponse(subscribers_csv(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{subscribers_filename()}"'
    response["Cache-Control"] = "private, no-store"
    return response
