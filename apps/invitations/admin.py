from django import forms
from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

from apps.core.admin_writes import ServiceDeleteMixin

from .models import Invitation
from .services import invitation_create, invitation_delete


class InvitationAddForm(forms.ModelForm):
    """Only the address: the code is drawn and the 30-day expiry set by invitation_create."""

    class Meta:
        model = Invitation
        fields = ["email"]
        help_texts = {
            "email": "Optioneel. De code en de vervaldatum (over 30 dagen) worden bij het opslaan gemaakt.",
        }


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

    def save_model(self, request, obj, form, change):
        created = invitation_create(invited_by=request.user, email=form.cleaned_data.get("email"))
        # The admin's own form object stands in for the invitation in the log and the success message.
        for field in Invitation._meta.concrete_fields:
            setattr(obj, field.attname, getattr(created, field.attname))

    def delete_through_service(self, request, obj):
        invitation_delete(invitation=obj)

    @admin.display(description="status")
    def status_label(self, obj):
        return obj.status.label
