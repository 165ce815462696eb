from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.forms.models import BaseInlineFormSet
from django.utils import timezone

from apps.core.admin_widgets import ReadableAutocompleteMixin
from apps.core.admin_writes import ServiceDeleteMixin, ServiceMadeForm

from .models import CalendarFeed, Event, EventParticipant, EventWaitlistEntry
from .services import (
    MESSAGE_PAST,
    EventError,
    calendar_feed_renew,
    event_delete,
    event_join,
    event_leave,
    event_save,
    event_sign_up,
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
    fields = readonly_fields = ("position", "participant_name", "participant_email", "created_at")
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
    fields = ["title", "event_date", "location", "description", "max_participants", "is_active", "created_at"]
    readonly_fields = ["created_at"]
    inlines = [EventParticipantInline, EventWaitlistInline]
    actions = ["deactivate"]

    def save_model(self, request, obj, form, change):
        """Through `event_save`: a raised maximum gives the new places to the waitlist, in order."""
        promoted = event_save(event=obj)
        if promoted:
            self.message_user(request, f"{len(promoted)} deelnemer(s) van de wachtlijst gehaald en gemaild.")

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


class EventParticipantAddForm(ServiceMadeForm):
    """Sign a member up on their behalf, through `event_join`, so the admin obeys the same capacity rules.

    The join happens in clean(): the admin's add view runs in one transaction, so the event stays locked
    from this check until the page is saved, and a refusal comes back as a normal form error.
    """

    class Meta:
        model = EventParticipant
        fields = ["event", "user"]

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        event, user = cleaned.get("event"), cleaned.get("user")
        if event is not None and user is not None:
            try:
                self.instance = event_join(user=user, event_id=event.pk)
            except EventError as error:
                raise ValidationError(str(error)) from error
        return cleaned


@admin.register(EventParticipant)
class EventParticipantAdmin(ReadableAutocompleteMixin, ServiceDeleteMixin, admin.ModelAdmin):
    """All sign-ups, searchable. Adding goes through event_join, removing through event_leave; an
    existing sign-up is not edited."""

    list_display = ["event", "user", "user_email", "created_at"]
    list_filter = ["event"]
    search_fields = ["user__email", "user__full_name", "event__title"]
    list_select_related = ["event", "user"]
    autocomplete_fields = ["event", "user"]

    @admin.display(description="e-mailadres", ordering="user__email")
    def user_email(self, obj):
        return obj.user.email

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = EventParticipantAddForm
            kwargs["fields"] = ["event", "user"]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return ["event", "user", "user_email", "created_at"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        """Nothing to do: the add form's event_join saved it, and a sign-up is never changed afterwards."""

    def has_change_permission(self, request, obj=None):
        return False

    def delete_refusal(self, request, obj):
        return _leave_refusal(obj.event)

    def delete_through_service(self, request, obj):
        try:
            event_leave(user=obj.user, event_id=obj.event_id)
        except EventError as error:
            raise ValidationError(str(error)) from error


class EventWaitlistAddForm(ServiceMadeForm):
    """Sign a member up on their behalf through `event_sign_up`: a place when there is one, else the end
    of the waitlist, under the same lock and rules as the member's own button."""

    class Meta:
        model = EventWaitlistEntry
        fields = ["event", "user"]

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        event, user = cleaned.get("event"), cleaned.get("user")
        if event is not None and user is not None:
            try:
                sign_up = event_sign_up(user=user, event_id=event.pk)
            except EventError as error:
                raise ValidationError(str(error)) from error
            if sign_up.participant is not None:
                raise ValidationError(f"Er was nog plek: {user} is direct aangemeld als deelnemer.")
            self.instance = EventWaitlistEntry.objects.get(event=event, user=user)
        return cleaned


@admin.register(EventWaitlistEntry)
class EventWaitlistEntryAdmin(ReadableAutocompleteMixin, admin.ModelAdmin):
    """Everyone waiting, per event in order. Adding goes through event_sign_up; an entry is never edited."""

    list_display = ["event", "user", "created_at"]
    list_filter = ["event"]
    search_fields = ["user__email", "user__full_name", "event__title"]
    list_select_related = ["event", "user"]
    autocomplete_fields = ["event", "user"]
    ordering = ["event", "id"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = EventWaitlistAddForm
            kwargs["fields"] = ["event", "user"]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return ["event", "user", "created_at"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        """Nothing to do: the add form's event_sign_up saved it."""

    def has_change_permission(self, request, obj=None):
        return False


class CalendarFeedAddForm(forms.ModelForm):
    class Meta:
        model = CalendarFeed
        fields = ["user"]

    def save(self, commit=True):
        self.save_m2m = lambda: None  # type: ignore[method-assign]  # as Django's own save(commit=False) does
        self.instance = calendar_feed_renew(user=self.cleaned_data["user"])
        return self.instance


@admin.register(CalendarFeed)
class CalendarFeedAdmin(ReadableAutocompleteMixin, admin.ModelAdmin):
    """Who has a calendar subscription. The token itself is never shown: it is the member's secret."""

    list_display = ["user", "created_at"]
    search_fields = ["user__email", "user__full_name"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
    fields = ["user", "created_at"]
    readonly_fields = ["created_at"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = CalendarFeedAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return ["user", "created_at"] if obj is not None else ["created_at"]

    def save_model(self, request, obj, form, change):
        """Nothing to do: calendar_feed_renew saved it (adding for a member who has one renews it)."""

    def has_change_permission(self, request, obj=None):
        return False
