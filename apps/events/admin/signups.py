"""The Django admin of sign-ups, waitlist entries and calendar feeds, each on its own screen, through the
event services."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from apps.core.admin_widgets import ReadableAutocompleteMixin
from apps.core.admin_writes import ServiceDeleteMixin, ServiceMadeForm

from ..models import CalendarFeed, EventParticipant, EventWaitlistEntry
from ..services import (
    EventError,
    calendar_feed_renew,
    event_join,
    event_leave,
    event_sign_up,
)
from .events import (
    _leave_refusal,
)


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

    list_display = ["event", "user", "created_at", "offer_expires_at"]
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
        return ["event", "user", "created_at", "offered_at", "offer_expires_at"] if obj is not None else []

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
