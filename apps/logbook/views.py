from urllib.parse import quote

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import FileResponse, Http404, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from apps.core.page_cache import Page, cached_page

from .charts import statistics_charts
from .export import export_filename
from .models import MemberExport
from .selectors import statistics_for, swum_with
from .services import export_request, export_storage

EXPORT_ANCHOR = "export"
EXPORT_LINK_SALT = "koud.logbook.export-link"
MESSAGE_EXPORT_REQUESTED = (
    "Je export wordt klaargezet. Je krijgt een e-mail zodra hij klaarstaat; de link staat dan ook hier."
)
MESSAGE_EXPORT_GONE = "Deze export is er niet meer. Zet hieronder een nieuwe klaar."


def account_export_url() -> str:
    return reverse("account") + f"#{EXPORT_ANCHOR}"


def _today(request) -> tuple:
    return (timezone.localdate(),)


@login_required
@require_safe
# Only the member's own dips, badges and cards (the member scope), counted up to today: a member with a
# thousand dips costs their first visit of the day and after each dip, not every visit.
@cached_page(template="logbook/statistics.html", vary=_today)
def statistics(request):
    stats = statistics_for(request.user)
    return Page({"stats": stats, "charts": statistics_charts(stats), "swum_with": swum_with(request.user)})


@login_required
@require_POST
def export(request):
    """Ask for the ZIP: the background worker prepares it; no web worker spends minutes (or holds a slow
    phone's download) on a thousand photos."""
    export_request(user=request.user)
    messages.success(request, MESSAGE_EXPORT_REQUESTED)
    return redirect(account_export_url())


def _own_ready_export(request) -> MemberExport | None:
    export = MemberExport.objects.filter(user=request.user).first()
    return export if export is not None and export.is_downloadable() else None


def _download_name(export: MemberExport) -> str:
    return export_filename(timezone.localdate(export.ready_at))


@login_required
@require_safe
def export_download(request):
    """The member's own export, by a short-lived link: a presigned URL on S3, else the signed link below."""
    export = _own_ready_export(request)
    if export is None:
        messages.error(request, MESSAGE_EXPORT_GONE)
        return redirect(account_export_url())
    storage = export_storage()
    if settings.STORAGES["exports"]["BACKEND"].endswith("S3Storage"):
        url = storage.url(
            export.file_name,
            parameters={"ResponseContentDisposition": f'attachment; filename="{_download_name(export)}"'},
            expire=settings.EXPORT_LINK_SECONDS,
        )
    else:
        token = signing.dumps({"u": request.user.pk, "f": export.file_name}, salt=EXPORT_LINK_SALT)
        url = reverse("account_export_file", args=[token])
    response = redirect(url)
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_safe
def export_file(request, token: str):
    """The signed link on the local file system: only for its owner, only for EXPORT_LINK_SECONDS. The bytes
    go out through nginx (X-Accel-Redirect to an internal location) or, without a proxy, from the app."""
    try:
        payload = signing.loads(token, salt=EXPORT_LINK_SALT, max_age=settings.EXPORT_LINK_SECONDS)
    except signing.BadSignature:  # also SignatureExpired
        raise Http404 from None
    export = _own_ready_export(request)
    if not isinstance(payload, dict) or export is None or payload != {"u": request.user.pk, "f": export.file_name}:
        raise Http404
    disposition = f'attachment; filename="{_download_name(export)}"'
    if settings.EXPORT_SERVE_VIA == "x-accel":
        response: HttpResponseBase = HttpResponse(content_type="application/zip")
        response["X-Accel-Redirect"] = settings.EXPORT_ACCEL_LOCATION + quote(export.file_name)
        response["Content-Disposition"] = disposition
    else:
        response = FileResponse(export_storage().open(export.file_name, "rb"), content_type="application/zip")
        response["Content-Disposition"] = disposition
    response["Cache-Control"] = "private, no-store"
    return response
