from django.contrib import admin

from .models import Attendance


@admin.register(Attendance)
class AttendanceAdmin(admin.ModelAdmin):
    """Who was at which event, and whether it stamped their card. Made and taken back on /admin/events/<id>
    ("Was erbij", through attendance_save, which registers and deletes the dips): only seen here."""

    list_display = ["event", "user", "stamped", "signed_off_by", "created_at"]
    list_select_related = ["event", "user", "signed_off_by"]
    list_filter = ["event"]
    search_fields = ["user__email", "user__full_name", "event__title"]
    fields = ("event", "user", "dip", "signed_off_by", "created_at")
    readonly_fields = fields

    @admin.display(description="afgetekend op de kaart", boolean=True)
    def stamped(self, obj):
        return obj.dip_id is not None

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
