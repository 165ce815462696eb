from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

from .models import Invitation


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return Invitation.Status.choices

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == Invitation.Status.USED:
            return queryset.filter(used_at__isnull=False)
        if self.value() == Invitation.Status.EXPIRED:
            return queryset.filter(used_at__isnull=True, expires_at__lte=now)
        if self.value() == Invitation.Status.ACTIVE:
            return queryset.filter(Q(used_at__isnull=True) & Q(expires_at__gt=now))
        return queryset


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["code", "email", "status_label", "invited_by", "created_at", "expires_at", "used_at", "used_by"]
    list_filter = [StatusFilter, "created_at"]
    search_fields = ["code", "email", "used_by__email", "invited_by__email"]
    list_select_related = ["invited_by", "used_by"]
    readonly_fields = ["created_at", "used_at", "used_by"]
    autocomplete_fields = ["invited_by"]

    @admin.display(description="status")
    def status_label(self, obj):
        return obj.status.label
