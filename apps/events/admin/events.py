"""The Django admin of events and series: the event screen with its sign-ups and waitlist inline."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from apps.core.admin_writes import ServiceDeleteMixin

from ..links import guest_link_url
from ..models import Event, EventParticipant, EventSeries, EventSeriesMember, EventSeriesSkip, EventWaitlistEntry
from ..services import (
    MESSAGE_PAST,
    EventError,
    event_delete,
    event_leave,
    event_save,
    events_deactivate,
)


def _leave_refusal(event: Event) -> str | None:
    # event_leave's own rule, asked before the admin confirms: a past event keeps its list of who was there.
    return MESSAGE_PAST if event.event_date < timezone.now() else None


class EventParticipantInlineFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        # _should_delete_form: Django's own check, private so not in the stubs.
        if any(self._should_delete_form(form) for form in self.forms):  # type: ignore[attr-defined]
            refusal = _leave_refusal(self.instance)
            if refusal:
                raise ValidationError(refusal)


class EventParticipantInline(admin.TabularInline):
    """Who signed up. Places are handed out by `event_join` and given up by `event_leave` only
    (see EventAdmin.save_formset), so the admin obeys the same rules as the member."""

    model = EventParticipant
    formset = EventParticipantInlineFormSet
    extra = 0
    fields = readonly_fields = ("participant_name", "participant_email", "created_at")
    can_delete = True
    show_change_link = False
    verbose_name_plural = "deelnemers"

    def get_queryset(self, request):
        # Each row prints the participation ("<user> bij <event>") plus name and e-mail: join both rows
        # into the one inline query instead of a query per participant.
        return super().get_queryset(request).select_related("user", "event")

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="naam")
    def participant_name(self, obj):
        return obj.user.display_name

    @admin.display(description="e-mailadres")
    def participant_email(self, obj):
        return obj.user.email


class EventWaitlistInline(admin.TabularInline):
    """The waitlist in order: place 1 gets the next free place. Read-only: only the services move people."""

    model = EventWaitlistEntry
    extra = 0
    fields = readonly_fields = ("position", "participant_name", "participant_email", "created_at", "offer_expires_at")
    can_delete = False
    show_change_link = False
    verbose_name_plural = "wachtlijst (op volgorde)"

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("user", "event")
            .annotate(place=Window(RowNumber(), partition_by=[F("event")], order_by=[F("id").asc()]))
            .order_by("id")
        )

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="plek")
    def position(self, obj):
        return obj.place

    @admin.display(description="naam")
    def participant_name(self, obj):
        return obj.user.display_name

    @admin.display(description="e-mailadres")
    def participant_email(self, obj):
        return obj.user.email


class PeriodFilter(admin.SimpleListFilter):
    title = "periode"
    parameter_name = "periode"

    def lookups(self, request, model_admin):
        return [("komend", "Komend"), ("voorbij", "Voorbij")]

    def queryset(self, request, queryset):
        if self.value() == "komend":
            return queryset.filter(event_date__gte=timezone.now())
        if self.value() == "voorbij":
            return queryset.filter(event_date__lt=timezone.now())
        return queryset


@admin.register(Event)
class EventAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    list_display = ["title", "event_date", "location", "participant_count", "is_active"]
    list_filter = ["is_active", PeriodFilter]
    search_fields = ["title", "location", "description"]
    date_hierarchy = "event_date"
    ordering = ["-event_date"]
    fields = [
        "title",
        "event_date",
        "location",
        "description",
        "max_participants",
        "is_active",
        "open_for_guests",
        "guest_limit",
        "guest_link",
        "guest_list",
        "series",
        "cancelled_at",
        "cancel_reason",
        "created_at",
    ]
    # A series is made, and an event afgelast, on /admin (event_series_create, event_cancel): here they are shown.
    readonly_fields = ["series", "cancelled_at", "cancel_reason", "created_at", "guest_link", "guest_list"]
    inlines = [EventParticipantInline, EventWaitlistInline]
    actions = ["deactivate"]

    def save_model(self, request, obj, form, change):
        """Through `event_save`: a raised maximum offers the new places to the waitlist, in order."""
        offered = event_save(event=obj)
        if offered:
            self.message_user(request, f"{len(offered)} plek(ken) aangeboden aan de wachtlijst en gemaild.")

    @admin.display(description="gastenlink")
    def guest_link(self, obj):
        if obj is None or not obj.open_for_guests or not obj.guest_token:
            return "Zet 'open voor gasten' aan en sla op: dan verschijnt hier de link om te delen."
        return guest_link_url(obj, absolute=True)

    @admin.display(description="gasten")
    def guest_list(self, obj):
        # A link to the guest list (with the invite action) rather than a wide table on the event's page.
        if obj is None or obj.pk is None:
            return "-"
        count = obj.guests.count()
        url = reverse("admin:events_eventguest_changelist") + f"?event__id__exact={obj.pk}"
        return format_html('<a href="{}">{} gast(en) bekijken en uitnodigen</a>', url, count)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "event_date" and field is not None:
            # The split widget's one <label> names only the date box: the time box gets its own name.
            date, time = field.widget.widgets
            date.attrs["aria-label"] = "datum"
            time.attrs["aria-label"] = "tijd"
        return field

    def message_user(self, request, message, *args, **kwargs):
        # Django's Dutch says "De {name} …"; "event" (the name members and /admin use) is a het-word.
        if isinstance(message, str) and message.startswith("De event "):
            message = type(message)("Het event " + message[len("De event ") :])
        super().message_user(request, message, *args, **kwargs)

    def get_queryset(self, request):
        # The count column costs one COUNT in the list query, not one query per row.
        return super().get_queryset(request).annotate(participant_total=Count("participants"))

    @admin.display(description="deelnemers", ordering="participant_total")
    def participant_count(self, obj):
        # With the maximum in the same cell ("3 / 10"), so the list stays narrow enough to show "actief".
        if obj.max_participants is None:
            return obj.participant_total
        return f"{obj.participant_total} / {obj.max_participants}"

    def save_formset(self, request, form, formset, change):
        if formset.model is not EventParticipant:
            return super().save_formset(request, form, formset, change)
        formset.save(commit=False)  # only collects the rows ticked for deletion
        for participation in formset.deleted_objects:
            try:
                event_leave(user=participation.user, event_id=participation.event_id)
            except EventError as error:
                self.message_user(request, str(error), level=messages.ERROR)
        return None

    def delete_through_service(self, request, obj):
        event_delete(event_id=obj.pk)

    @admin.action(description="Geselecteerde events deactiveren")
    def deactivate(self, request, queryset):
        updated = events_deactivate(event_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, f"{updated} event(s) gedeactiveerd.")


@admin.register(EventSeries)
class EventSeriesAdmin(admin.ModelAdmin):
    """Weekly series, made on /admin (Nieuw event with "Herhaal elke week tot"): seen here, never made or
    changed here. Each event of a series is an ordinary event above."""

    list_display = ["__str__", "repeat_until", "event_count", "created_at"]
    fields = ("repeat_until", "created_at")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(event_total=Count("events"))

    @admin.display(description="events", ordering="event_total")
    def event_count(self, obj):
        return obj.event_total

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class _SeenHere(admin.ModelAdmin):
    """Made by the member on a date's page (apps.events.services.series): seen here, never made or changed here."""

    list_select_related = True

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(EventSeriesMember)
class EventSeriesMemberAdmin(_SeenHere):
    """ "Ik kom elke week": who comes to every date of a series."""

    list_display = ["user", "series", "created_at"]


@admin.register(EventSeriesSkip)
class EventSeriesSkipAdmin(_SeenHere):
    """A date a series member signed off for."""

    list_display = ["user", "event", "created_at"]
