"""The Django admin of what members did: stamp cards, dips, earned badges and dip buddies (mostly read-only here)."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Count

from apps.core.admin_widgets import ReadableAutocompleteMixin
from apps.core.admin_writes import ServiceDeleteAdmin

from ..models import Dip, DipBuddy, UserBadge, UserChallenge
from ..services.cards import user_challenge_delete
from ..services.dip_changes import dip_delete
from ..services.errors import ChallengeError


class ReadOnlyHereMixin:
    """Dips, cards and earned badges are made only by the stamp card's services (numbering, badges,
    completion), so the admin shows them and may delete through a service, but never adds or edits."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class DipInline(admin.TabularInline):
    model = Dip
    extra = 0
    fields = ["number", "dip_date", "created_at", "photo"]
    readonly_fields = ["number", "dip_date", "created_at", "photo"]
    can_delete = False
    show_change_link = True


class UserBadgeInline(admin.TabularInline):
    model = UserBadge
    extra = 0
    fields = ["badge", "earned_at"]
    readonly_fields = ["badge", "earned_at"]
    can_delete = False


@admin.register(UserChallenge)
class UserChallengeAdmin(ReadableAutocompleteMixin, ReadOnlyHereMixin, ServiceDeleteAdmin):
    list_display = ["user", "challenge", "challenge_type", "is_active", "started_at", "completed_at", "dip_count"]
    list_filter = ["challenge_type", "is_active", "challenge"]
    search_fields = ["user__email", "user__full_name"]
    list_select_related = ["user", "challenge"]
    autocomplete_fields = ["user"]
    inlines = [UserBadgeInline, DipInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(dip_total=Count("dips"))

    @admin.display(description="plonsen", ordering="dip_total")
    def dip_count(self, obj):
        return obj.dip_total

    def delete_through_service(self, request, obj):
        try:
            user_challenge_delete(user_challenge_id=obj.pk)
        except ChallengeError as error:
            raise ValidationError(str(error)) from error


@admin.register(Dip)
class DipAdmin(ReadableAutocompleteMixin, ReadOnlyHereMixin, ServiceDeleteAdmin):
    """A dip deleted here leaves its card whole (dip_delete renumbers, takes back badges, reopens the card)."""

    list_display = ["user", "user_challenge", "number", "dip_date", "has_photo", "created_at"]
    list_filter = ["dip_date"]
    search_fields = ["user__email", "user__full_name"]
    list_select_related = ["user", "user_challenge__challenge"]
    date_hierarchy = "dip_date"
    # The conditions are the member's own log: shown, never changed by an admin.
    readonly_fields = ["photo", "thumbnail", "created_at", "water_temperature", "duration_seconds", "spot", "note"]
    autocomplete_fields = ["user"]

    @admin.display(description="foto", boolean=True)
    def has_photo(self, obj):
        return bool(obj.photo)

    def delete_through_service(self, request, obj):
        try:
            dip_delete(dip_id=obj.pk)
        except ChallengeError as error:
            raise ValidationError(str(error)) from error


@admin.register(UserBadge)
class UserBadgeAdmin(ReadableAutocompleteMixin, ReadOnlyHereMixin, admin.ModelAdmin):
    """Badges follow the dips (dip_register awards, dip_delete takes back): never by hand."""

    def has_delete_permission(self, request, obj=None):
        return False

    list_display = ["user", "badge", "user_challenge", "earned_at"]
    list_filter = ["badge"]
    search_fields = ["user__email", "user__full_name", "badge__name"]
    list_select_related = ["user", "badge", "user_challenge__challenge"]
    autocomplete_fields = ["user"]


@admin.register(DipBuddy)
class DipBuddyAdmin(ReadableAutocompleteMixin, ReadOnlyHereMixin, admin.ModelAdmin):
    """Buddies on a dip: named by the member ("Met wie?"), answered by the buddy (apps.together). Shown here,
    never made, changed or deleted by hand: they go with their dip or either account."""

    def has_delete_permission(self, request, obj=None):
        return False

    list_display = ["dip", "buddy", "status", "created_at", "decided_at"]
    list_filter = ["status"]
    search_fields = ["buddy__email", "buddy__full_name", "dip__user__email", "dip__user__full_name"]
    list_select_related = ["buddy", "dip__user"]
