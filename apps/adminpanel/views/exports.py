"""Downloads of the admin screen: Excel files (and the address-label CSV). Admins only, like the CSV."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_safe

from apps.accounts.access import admin_required
from apps.audit.actions import AuditAction
from apps.shipping.selectors import PhysicalFilter, to_send_rows

from ..csv_export import table_csv
from ..selectors import subscriber_rows, user_export_rows
from ..xlsx_export import XLSX_CONTENT_TYPE, Column, export_filename, workbook
from .audited import exported
from .page import MESSAGE_NO_SUBSCRIBERS

SUBSCRIBER_COLUMNS = [Column("Email", 36), Column("Naam", 28), Column("Aangemeld op", 14, "date")]
USER_COLUMNS = [
    Column("Email", 36),
    Column("Naam", 28),
    Column("Lid sinds", 14, "date"),
    Column("Plonsen", 10, "number"),
    Column("Badges", 10, "number"),
    Column("Laatste plons", 14, "date"),
]
TO_SEND_COLUMNS = [
    Column("Naam", 28),
    Column("Email", 32),
    Column("Straat en huisnummer", 32),
    Column("Postcode", 10),
    Column("Plaats", 20),
    Column("Land", 14),
    Column("Badge", 18),
    Column("Challenge", 26),
    Column("Verdiend op", 14, "date"),
]


def _download(content, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@admin_required
@require_safe
def newsletter_xlsx(request):
    rows = list(subscriber_rows())
    if not rows:
        messages.error(request, MESSAGE_NO_SUBSCRIBERS)
        return redirect("adminpanel")
    content = workbook(sheet="Nieuwsbrief", columns=SUBSCRIBER_COLUMNS, rows=rows)
    exported(request, AuditAction.SUBSCRIBERS_EXPORTED, len(rows))
    return _download(content, filename=export_filename("nieuwsbrief-abonnees"), content_type=XLSX_CONTENT_TYPE)


@admin_required
@require_safe
def users_xlsx(request):
    rows = list(user_export_rows())
    content = workbook(sheet="Gebruikers", columns=USER_COLUMNS, rows=rows)
    exported(request, AuditAction.USERS_EXPORTED, len(rows))
    return _download(content, filename=export_filename("gebruikers"), content_type=XLSX_CONTENT_TYPE)


@admin_required
@require_safe
def to_send_xlsx(request):
    rows = to_send_rows(badge_id=PhysicalFilter.from_query(request.GET).badge_id)
    rows = list(rows)
    content = workbook(sheet="Te versturen", columns=TO_SEND_COLUMNS, rows=rows)
    exported(request, AuditAction.ADDRESSES_EXPORTED, len(rows))
    return _download(content, filename=export_filename("badges-te-versturen"), content_type=XLSX_CONTENT_TYPE)


@admin_required
@require_safe
def to_send_csv(request):
    rows = to_send_rows(badge_id=PhysicalFilter.from_query(request.GET).badge_id)
    rows = list(rows)
    content = table_csv([column.title for column in TO_SEND_COLUMNS], rows)
    exported(request, AuditAction.ADDRESSES_EXPORTED, len(rows))
    return _download(
        content, filename=export_filename("badges-te-versturen", "csv"), content_type="text/csv; charset=utf-8"
    )
