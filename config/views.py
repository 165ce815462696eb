import logging

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import connection
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe

from apps.challenges.catalogue import WATERDIEREN_BADGES
from apps.core.errors import MESSAGE_BAD_REQUEST, MESSAGE_CONFLICT, MESSAGE_SERVER_ERROR, CoreRefusal, error_response
from apps.core.page_cache import Page, cached_page
from apps.core.sql_registry import register

logger = logging.getLogger("koud.notfound")

_ANSWERS = register("healthz.database_answers", both="SELECT 1")


def _landing_context() -> dict:
    # The badge tiles come from the catalogue the database is seeded from: no query, one source.
    # The 24-hour line promises only what the app enforces (DIP_DAILY_LIMIT_ENABLED); otherwise it is advice.
    return {"waterdieren_badges": WATERDIEREN_BADGES, "dip_daily_limit": settings.DIP_DAILY_LIMIT_ENABLED}


def landing(request):
    if request.user.is_authenticated:
        return _landing_signed_in(request)
    return render(request, "landing.html", _landing_context())


# A member's landing page is the same for every member (a way to the dashboard): rendered once per member
# and release, not on every visit. Not in the URL conf itself: signed out, the page sets no CSRF cookie.
@cached_page(template="landing.html")
def _landing_signed_in(request):
    return Page(_landing_context())


@never_cache
@require_safe
def healthz(request):
    """200 when the app and its database answer; 503 otherwise. For load balancers and Docker."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(_ANSWERS.sql(connection.vendor))
            cursor.fetchone()
    except Exception:
        logger.exception("Health check: database did not answer")
        return HttpResponse("database unavailable\n", status=503, content_type="text/plain")
    return HttpResponse("ok\n", content_type="text/plain")


@require_safe
@cache_control(max_age=60 * 60 * 24)
def favicon(request):
    """Browsers and feed readers ask for /favicon.ico whatever the page says: the static icon (hashed in production)."""
    return redirect(static("favicon.ico"))


SERVICE_WORKER_FILE = "sw.js"


@require_safe
def service_worker(request):
    """The service worker built by Vite (frontend/dist/sw.js), served from the root so its scope is "/".

    The browser checks it for updates on every visit, so it is never cached for long.
    """
    path = finders.find(SERVICE_WORKER_FILE)
    try:
        if path:
            with open(path, "rb") as file:
                body = file.read()
        else:
            with staticfiles_storage.open(SERVICE_WORKER_FILE) as file:
                body = file.read()
    except OSError as error:
        raise Http404("Geen service worker gebouwd") from error
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request):
    """The page the service worker shows without signal when it has no copy of the page asked for."""
    return render(request, "offline.html")


def page_not_found(request, exception=None):
    logger.warning("Page not found: %s", request.path)
    return render(request, "404.html", {"path": request.path}, status=404)


def server_error(request):
    """Whatever broke: the islands get JSON they can show (never this HTML page); the rest the 500 page."""
    if _wants_json(request):
        return error_response(MESSAGE_SERVER_ERROR, code=CoreRefusal.SERVER_ERROR, status=500)
    return render(request, "500.html", status=500)


def conflict(request):
    """A write that lost a race the database caught (an IntegrityError): nothing was written, try again."""
    if _wants_json(request):
        return error_response(MESSAGE_CONFLICT, code=CoreRefusal.CONFLICT, status=409)
    return render(request, "try_again.html", {"message": MESSAGE_CONFLICT}, status=409)


MESSAGE_CSRF = "Je sessie is verlopen of het formulier was verouderd. Laad de pagina opnieuw en probeer het nog eens."


def _wants_json(request) -> bool:
    # The islands send Accept: application/json and the CSRF header; forms and links get a page.
    return (
        "application/json" in request.headers.get("Accept", "")
        or request.headers.get("X-CSRFToken") is not None
        or request.content_type == "application/json"
    )


def csrf_failure(request, reason=""):
    """A stale form or a missing token: a clear Dutch answer instead of Django's English page."""
    logger.info("CSRF refused for %s: %s", request.path, reason)
    if _wants_json(request):
        return error_response(MESSAGE_CSRF, code=CoreRefusal.CSRF_FAILED, status=403)
    return render(request, "try_again.html", {"message": MESSAGE_CSRF}, status=403)


def bad_request(request, exception=None):
    """Django refuses a request it cannot read (too big, too many fields, broken multipart): say so in Dutch."""
    if _wants_json(request):
        return error_response(MESSAGE_BAD_REQUEST, code=CoreRefusal.BAD_REQUEST, status=400)
    return render(request, "try_again.html", {"message": MESSAGE_BAD_REQUEST}, status=400)


# Finished background tasks (their mails' bodies) go with `prune_db_task_results` (django-tasks-db's default age).
TASK_RESULTS_KEEP_DAYS = 14


def _host_of(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or ""


def privacy_facts() -> dict:
    """What /privacy says, read from the settings and constants the app enforces (one home per rule)."""
    from apps.events.services import GUEST_KEEP_DAYS
    from apps.invitations.models import VALID_DAYS

    photos = settings.STORAGES["photos"]
    s3 = "s3" in photos["BACKEND"].lower()
    return {
        "club_name": settings.CLUB_NAME,
        "contact": settings.PRIVACY_CONTACT,
        "mail_host": getattr(settings, "EMAIL_HOST", "") if "smtp" in settings.EMAIL_BACKEND else "",
        "storage_host": _host_of(photos.get("OPTIONS", {}).get("endpoint_url") or "") if s3 else "",
        "photos_on_s3": s3,
        "export_keep_hours": settings.EXPORT_KEEP_HOURS,
        "export_link_minutes": max(1, settings.EXPORT_LINK_SECONDS // 60),
        "guest_keep_days": GUEST_KEEP_DAYS,
        "guest_confirm_minutes": settings.GUEST_CONFIRM_MINUTES,
        "audit_keep_days": settings.AUDIT_KEEP_DAYS,
        "session_days": settings.SESSION_COOKIE_AGE // 86400,
        "invitation_days": VALID_DAYS,
        "task_results_days": TASK_RESULTS_KEEP_DAYS,
    }


@require_safe
def privacy(request):
    """Het privacybeleid: public, the same for everyone."""
    return render(request, "privacy.html", privacy_facts())
