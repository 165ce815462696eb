import functools
import hashlib

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from apps.accounts.access import admin_required, organiser_required
from apps.audit.actions import AuditAction
from apps.core.errors import error_response
from apps.core.page_cache import CATALOGUE, CLUB, PAGE_DIGEST_HEADER, Page, cached_page
from apps.operations.views import status_card_html, status_card_slot
from apps.shipping.selectors import physical_counts

from ..csv_export import MESSAGE_NO_SUBSCRIBERS, subscribers_csv, subscribers_filename
from ..insights import club_figures
from ..refusals import AdminRefusal
from ..selectors import admin_stats_payload, subscriber_rows
from .audited import exported


def _today(request) -> tuple:
    return (timezone.localdate(),)


def with_system_status(view):
    """The Systeemstatus card is fresh on every request, in a page served from the cache: the cached page
    holds a slot, filled here. The page's digest (which the service worker compares) covers the card."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        slot = status_card_slot().encode()
        if response.status_code != 200 or slot not in response.content:
            return response
        response.content = response.content.replace(slot, status_card_html().encode(), 1)
        if PAGE_DIGEST_HEADER in response:
            response[PAGE_DIGEST_HEADER] = hashlib.sha256(response.content).hexdigest()[:20]
        return response

    return wrapper


@organiser_required
@require_safe
def admin_page(request):
    """/admin: the admin's screen; for an organiser, exactly her screens (events and club messages)."""
    if not request.user.is_admin:
        return render(request, "adminpanel/organiser.html")
    return _admin_screen(request)


@with_system_status
@cached_page(CLUB, CATALOGUE, template="adminpanel/admin.html", vary=_today)
def _admin_screen(request):
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
        "system_status_slot": status_card_slot(),
    }
    return Page(context)


# /admin declares the scopes of the admin's cached screen (tests/test_page_cache_declared.py walks the URLs).
admin_page.cached_page = _admin_screen.cached_page


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
