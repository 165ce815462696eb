"""/admin/events: the organiser's events. Coming and past, Nieuw event (one, or a weekly series), Bewerken
(this one, or this and the following of its series), Afgelasten with a reason, the lists with names and their
CSV/Excel, and "Was erbij" (attendance, which stamps the cards). Plain forms; every write is a service."""

import datetime

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.accounts.access import admin_required, organiser_required
from apps.attendance.selectors import attendance_rows, member_find
from apps.attendance.services import (
    MESSAGE_CONFIRMED,
    MESSAGE_SAVED,
    MESSAGE_STAMPED,
    MESSAGE_TAKEN_BACK,
    attendance_open,
    attendance_save,
    attendance_window,
)
from apps.audit.services import AuditMeta
from apps.core.errors import DomainError
from apps.core.formatting import dutch_date
from apps.core.numbers import whole_number
from apps.core.page_cache import CLUB, EVENTS, Page, cached_page
from apps.events.links import guest_link_url
from apps.events.models import CANCEL_REASON_MAX_LENGTH, Event, EventGuest
from apps.events.selectors import event_list_rows, event_lists
from apps.events.series_selectors import organiser_events_page
from apps.events.services import (
    MESSAGE_CREATED,
    MESSAGE_EVENT_CANCELLED,
    MESSAGE_EVENTS_CANCELLED,
    MESSAGE_GUESTS_INVITED,
    MESSAGE_GUESTS_NONE_CHOSEN,
    MESSAGE_GUESTS_SKIPPED,
    MESSAGE_NOTIFIED,
    MESSAGE_SERIES_CREATED,
    MESSAGE_UPDATED,
    MESSAGE_UPDATED_FOLLOWING,
    EventError,
    event_cancel,
    event_create,
    event_series_create,
    event_update,
    guests_invite,
)

from ..csv_export import table_csv
from ..event_forms import SCOPE_FOLLOWING, CancelForm, EventForm
from ..xlsx_export import XLSX_CONTENT_TYPE, Column, workbook

PAGE_PARAMETER = "pagina"
PERIOD_PARAMETER = "periode"
PAST = "voorbij"
LIST_COLUMNS = [
    Column("Lijst", 12),
    Column("Plek", 6, "number"),
    Column("Naam", 28),
    Column("Email", 34),
    Column("Aangemeld op", 14, "date"),
]


@organiser_required
@require_safe
@cached_page(EVENTS, template="adminpanel/events.html", query=[PERIOD_PARAMETER, PAGE_PARAMETER])
def events_list(request):
    past = request.GET.get(PERIOD_PARAMETER) == PAST
    page = organiser_events_page(request.user, past=past, number=request.GET.get(PAGE_PARAMETER))
    context = {"rows": page.rows, "page": page.page, "past": past, "page_parameter": PAGE_PARAMETER}
    return Page(context, valid_for=page.valid_for)


def _notified(text: str, count: int) -> str:
    return text + (MESSAGE_NOTIFIED.format(count=count) if count else "")


@organiser_required
@require_http_methods(["GET", "HEAD", "POST"])
def event_new(request):
    form = EventForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        until = form.cleaned_data.get("repeat_until")
        try:
            if until:
                events = event_series_create(details=form.details(), repeat_until=until)
                messages.success(request, MESSAGE_SERIES_CREATED.format(count=len(events), until=dutch_date(until)))
                return redirect("adminpanel_event", event_id=events[0].pk)
            event = event_create(details=form.details())
        except EventError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, MESSAGE_CREATED)
            return redirect("adminpanel_event", event_id=event.pk)
    return render(request, "adminpanel/event_form.html", {"form": form, "event": None})


def _event_or_404(event_id: int) -> Event:
    return get_object_or_404(Event.objects.select_related("series"), pk=event_id)


def _detail_valid_for(event: Event) -> float:
    """The attendance form opens at the start and closes 48 hours later: the page is new at both moments."""
    now = timezone.now()
    moments = [moment for moment in attendance_window(event) if moment > now]
    return min([(moment - now).total_seconds() for moment in moments], default=24 * 60 * 60)


@organiser_required
@require_safe
@cached_page(EVENTS, CLUB, template="adminpanel/event_detail.html")
def event_detail(request, event_id: int):
    event = _event_or_404(event_id)
    now = timezone.now()
    context = {
        "event": event,
        "lists": event_lists(event),
        "is_past": event.event_date < now,
        "attendance_open": attendance_open(event, now=now),
        "attendance_rows": attendance_rows(event) if event.event_date <= now else [],
        "attendance_closes": attendance_window(event)[1],
        "scope_following": SCOPE_FOLLOWING,
        "viewer_id": request.user.pk,
        "cancel_reason_max_length": CANCEL_REASON_MAX_LENGTH,
        "guest_link": guest_link_url(event, absolute=True) if event.open_for_guests and event.guest_token else "",
    }
    return Page(context, valid_for=_detail_valid_for(event))


@organiser_required
@require_http_methods(["GET", "HEAD", "POST"])
def event_edit(request, event_id: int):
    event = _event_or_404(event_id)
    if event.is_cancelled or event.event_date < timezone.now():
        messages.error(request, "Een afgelast of voorbij event pas je niet meer aan.")
        return redirect("adminpanel_event", event_id=event.pk)
    form = EventForm(request.POST or None, event=event)
    if request.method == "POST" and form.is_valid():
        try:
            change = event_update(event_id=event.pk, details=form.details(), following=form.following)
        except EventError as error:
            form.add_error(None, str(error))
        else:
            text = MESSAGE_UPDATED if len(change.events) == 1 else MESSAGE_UPDATED_FOLLOWING
            messages.success(request, _notified(text.format(count=len(change.events)), change.notified))
            return redirect("adminpanel_event", event_id=event.pk)
    return render(request, "adminpanel/event_form.html", {"form": form, "event": event})


@organiser_required
@require_POST
def event_cancel_view(request, event_id: int):
    event = _event_or_404(event_id)
    form = CancelForm(request.POST)
    if not form.is_valid():
        messages.error(request, str(next(iter(form.errors.values()))[0]))
        return redirect("adminpanel_event", event_id=event.pk)
    try:
        change = event_cancel(
            event_id=event.pk,
            reason=form.cleaned_data["reason"],
            following=form.cleaned_data.get("scope") == SCOPE_FOLLOWING,
            meta=AuditMeta.from_request(request),
        )
    except EventError as error:
        messages.error(request, str(error))
    else:
        text = MESSAGE_EVENT_CANCELLED if len(change.events) == 1 else MESSAGE_EVENTS_CANCELLED
        messages.success(request, _notified(text.format(count=len(change.events)), change.notified))
    return redirect("adminpanel_event", event_id=event.pk)


@organiser_required
@require_POST
def event_attendance(request, event_id: int):
    event = _event_or_404(event_id)
    back = redirect(reverse("adminpanel_event", args=[event.pk]) + "#aanwezig")
    present = [pk for value in request.POST.getlist("aanwezig") if (pk := whole_number(value)) is not None]
    walk_in = None
    try:
        if request.POST.get("lid", "").strip():
            walk_in = member_find(request.POST["lid"])
        result = attendance_save(
            event_id=event.pk,
            organiser=request.user,
            present_user_ids=present,
            walk_in=walk_in,
            meta=AuditMeta.from_request(request),
        )
    except DomainError as error:
        messages.error(request, str(error))
        return back
    messages.success(request, MESSAGE_SAVED)
    if result.stamped:
        messages.success(request, MESSAGE_STAMPED.format(names=", ".join(result.stamped)))
    if result.confirmed:
        messages.success(request, MESSAGE_CONFIRMED.format(names=", ".join(result.confirmed)))
    if result.taken_back:
        messages.info(request, MESSAGE_TAKEN_BACK.format(names=", ".join(result.taken_back)))
    for refusal in result.refusals:
        messages.warning(request, refusal)
    return back


@admin_required
@require_POST
def event_guests_invite(request, event_id: int):
    """After the event: the guests the organiser ticked each get an invitation to join the club (with its mail)."""
    event = _event_or_404(event_id)
    back = redirect(reverse("adminpanel_event", args=[event.pk]) + "#gasten")
    chosen = [pk for value in request.POST.getlist("gast") if (pk := whole_number(value)) is not None]
    # Only this event's guests: an id of another event's guest is not invited from this page.
    guest_ids = list(EventGuest.objects.filter(event=event, pk__in=chosen).values_list("pk", flat=True))
    if not guest_ids:
        messages.error(request, MESSAGE_GUESTS_NONE_CHOSEN)
        return back
    try:
        result = guests_invite(guest_ids=guest_ids, invited_by=request.user)
    except DomainError as error:
        messages.error(request, str(error))
        return back
    if result.invited:
        messages.success(request, MESSAGE_GUESTS_INVITED.format(count=result.invited))
    if result.skipped:
        messages.warning(request, MESSAGE_GUESTS_SKIPPED.format(count=result.skipped))
    return back


def _download(content, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


def _lists_stem(event: Event) -> str:
    day: datetime.date = timezone.localdate(event.event_date)
    return f"event-{event.pk}-{day.isoformat()}-deelnemers"


@organiser_required
@require_safe
def event_lists_csv(request, event_id: int):
    event = _event_or_404(event_id)
    content = table_csv([column.title for column in LIST_COLUMNS], event_list_rows(event))
    filename = f"{_lists_stem(event)}.csv"
    return _download(content, filename=filename, content_type="text/csv; charset=utf-8")


@organiser_required
@require_safe
def event_lists_xlsx(request, event_id: int):
    event = _event_or_404(event_id)
    content = workbook(sheet="Deelnemers", columns=LIST_COLUMNS, rows=event_list_rows(event))
    return _download(content, filename=f"{_lists_stem(event)}.xlsx", content_type=XLSX_CONTENT_TYPE)
