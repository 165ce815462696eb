from typing import Any, cast

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from apps.core.admin_writes import ServiceDeleteMixin, ServiceMadeForm

from .models import Invitation
from .services import invitation_create, invitation_delete


class InvitationAddForm(ServiceMadeForm):
    """Only the address: invitation_create draws the code and sets the 30-day expiry, in clean(), so its
    refusals (an address with an account or an open invitation) are normal form errors."""

    # The admin who adds it; InvitationAdmin.get_form sets it (a user: that model sits above this app).
    invited_by: Any = None

    class Meta:
        model = Invitation
        fields = ["email"]
        help_texts = {
            "email": "Optioneel. De code en de vervaldatum (over 30 dagen) worden bij het opslaan gemaakt.",
        }

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        if not self.errors:
            try:
                self.instance = invitation_create(invited_by=self.invited_by, email=cleaned.get("email"))
            except ValidationError as error:
                raise ValidationError({"email": error.messages}) from error
            cleaned["email"] = self.instance.email  # as stored (lower case), for the admin's messages
        return cleaned


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
class InvitationAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    """Made by invitation_create, removed by invitation_delete, used only at sign-up: never edited here."""

    form = InvitationAddForm
    list_display = ["code", "email", "status_label", "invited_by", "created_at", "expires_at", "used_at", "used_by"]
    list_filter = [StatusFilter, "created_at"]
    search_fields = ["code", "email", "used_by__email", "invited_by__email"]
    list_select_related = ["invited_by", "used_by"]
    readonly_fields = ["code", "email", "invited_by", "created_at", "expires_at", "used_at", "used_by"]

    def get_fields(self, request, obj=None):
        return ["email"] if obj is None else self.readonly_fields

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.readonly_fields

    def has_change_permission(self, request, obj=None):
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = cast(type[InvitationAddForm], super().get_form(request, obj, change=change, **kwargs))
        form.invited_by = request.user
        return form

    def save_model(self, request, obj, form, change):
        """Nothing to do: the add form's invitation_create made it, and an invitation is never changed."""

    def delete_through_service(self, request, obj):
        invitation_delete(invitation=obj)

    @admin.display(description="status")
    def status_label(self, obj):
        return obj.status.label
