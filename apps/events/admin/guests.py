"""The Django admin of event guests (people without an account who signed up through the guest link)."""

from django.contrib import admin, messages

from ..models import EventGuest
from ..services import (
    EventError,
    guests_invite,
)


@admin.register(EventGuest)
class EventGuestAdmin(admin.ModelAdmin):
    """The guests of every event. After an event the organiser selects guests and invites them to join the club
    (`guests_invite`: the invitations service, with its mail). Guests are not edited or deleted here: they
    cancel through their own link, a sign-up not confirmed in time goes (`send_scheduled_mail`), and
    `delete_old_guests` removes them 30 days after the event."""

    list_display = ["name", "email", "event", "created_at", "confirmed", "invited"]
    list_filter = ["event"]
    search_fields = ["name", "email", "event__title"]
    list_select_related = ["event", "invitation"]
    readonly_fields = ["event", "name", "email", "safety_agreed_at", "created_at", "confirm_by", "invitation"]
    actions = ["invite"]

    @admin.display(description="bevestigd", boolean=True)
    def confirmed(self, obj):
        return obj.confirm_by is None

    @admin.display(description="uitgenodigd", boolean=True)
    def invited(self, obj):
        return obj.invitation_id is not None

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Uitnodigen om lid te worden van de club")
    def invite(self, request, queryset):
        try:
            result = guests_invite(guest_ids=list(queryset.values_list("pk", flat=True)), invited_by=request.user)
        except EventError as error:
            self.message_user(request, str(error), level=messages.ERROR)
            return
        self.message_user(request, f"{result.invited} gast(en) uitgenodigd en gemaild; {result.skipped} overgeslagen.")
