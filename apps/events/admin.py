from django.contrib import admin
from django.db.models import Count

from .models import Event, EventParticipant


class EventParticipantInline(admin.TabularInline):
    model = EventParticipant
    extra = 0
    fields = ["user", "participant_email", "created_at"]
    readonly_fields = ["participant_email", "created_at"]
    autocomplete_fields = ["user"]

    @admin.display(description="e-mailadres")
    def participant_email(self, obj):
        return obj.user.email if obj.user_id else ""

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("user")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["title", "event_date", "location", "participant_count", "max_participants", "is_active"]
    list_filter = ["is_active", "event_date"]
    search_fields = ["title", "location", "description"]
    date_hierarchy = "event_date"
    inlines = [EventParticipantInline]
    actions = ["deactivate"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(participant_total=Count("participants"))

    @admin.display(description="deelnemers", ordering="participant_total")
    def participant_count(self, obj):
        return obj.participant_total

    @admin.action(description="Geselecteerde events deactiveren")
    def deactivate(self, request, queryset):
        updated = queryset.update(is_active=False)
        self.message_user(request, f"{updated} event(s) gedeactiveerd.")


@admin.register(EventParticipant)
class EventParticipantAdmin(admin.ModelAdmin):
    list_display = ["event", "user", "created_at"]
    list_filter = ["event"]
    search_fields = ["user__email", "user__full_name", "event__title"]
    list_select_related = ["event", "user"]
    autocomplete_fields = ["user", "event"]
