from typing import cast

from allauth.mfa.admin import AuthenticatorAdmin
from allauth.mfa.models import Authenticator
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, OuterRef
from django.forms.models import BaseInlineFormSet

from apps.audit.services import AuditMeta
from apps.core.admin_widgets import ReadableAutocompleteMixin
from apps.core.admin_writes import ServiceDeleteMixin

from .models import User, UserRole
from .passwords import password_length_validate
from .removal import AdminActionError, user_deactivation_refusal, user_delete, user_delete_refusal, user_save
from .second_factor import second_factor_remove
from .services import role_grant, role_revoke

# The Django admin is for admins only: whoever takes their own role away here locks themselves out,
# and when they are the last admin the club has none left.
MESSAGE_OWN_ROLE = "Je kunt je eigen admin-rol hier niet intrekken."


class UserRoleInlineFormSet(BaseInlineFormSet):
    request_user_pk: int | None = None  # set by UserRoleInline.get_formset

    def clean(self):
        super().clean()
        # _should_delete_form: Django's own check, private so not in the stubs.
        deleting = any(self._should_delete_form(f) for f in self.forms)  # type: ignore[attr-defined]
        if self.instance.pk == self.request_user_pk and deleting:
            raise ValidationError(MESSAGE_OWN_ROLE)


class UserRoleInline(admin.TabularInline):
    """Granting and revoking go through admin_grant/admin_revoke (see UserAdmin.save_formset)."""

    model = UserRole
    formset = UserRoleInlineFormSet
    extra = 0
    fields = ["role"]

    def has_change_permission(self, request, obj=None):
        return False  # a role row is granted or revoked, never edited

    def get_formset(self, request, obj=None, **kwargs):
        formset = cast(type[UserRoleInlineFormSet], super().get_formset(request, obj, **kwargs))
        formset.request_user_pk = request.user.pk
        return formset


class UserAdminForm(forms.ModelForm):
    password = forms.CharField(
        label="Nieuw wachtwoord",
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Laat leeg om het huidige wachtwoord te houden.",
    )

    class Meta:
        model = User
        fields = ["email", "full_name", "newsletter_consent", "is_active", "password"]

    def clean_is_active(self):
        is_active = self.cleaned_data["is_active"]
        if not is_active and self.instance.pk is not None:
            refusal = user_deactivation_refusal(user_id=self.instance.pk)
            if refusal:
                raise ValidationError(refusal)
        return is_active

    def clean_password(self):
        password = self.cleaned_data["password"]
        if password:
            password_length_validate(password)
        return password

    def save(self, commit=True):
        user = super().save(commit=False)
        new_password = self.cleaned_data.get("password")
        if new_password:
            user.set_password(new_password)
        elif user.pk:
            user.password = User.objects.only("password").get(pk=user.pk).password
        else:
            user.set_unusable_password()
        if commit:
            user.save()
        return user


@admin.register(User)
class UserAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    form = UserAdminForm
    list_display = ["email", "full_name", "created_at", "newsletter_consent", "is_admin_role", "dip_count", "is_active"]
    list_filter = ["newsletter_consent", "is_active", "created_at"]
    search_fields = ["email", "full_name"]
    ordering = ["-created_at"]
    readonly_fields = ["created_at", "last_login"]
    inlines = [UserRoleInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                dip_total=Count("dips", distinct=True),
                holds_admin_role=Exists(UserRole.objects.filter(user=OuterRef("pk"), role=UserRole.Role.ADMIN)),
            )
        )

    @admin.display(description="admin", boolean=True, ordering="holds_admin_role")
    def is_admin_role(self, obj):
        return obj.holds_admin_role

    @admin.display(description="plonsen", ordering="dip_total")
    def dip_count(self, obj):
        return obj.dip_total

    def lookup_allowed(self, lookup, value, request=None):
        # As Django's own UserAdmin: ?password__startswith=... would read a hash one character at a time.
        return not lookup.startswith("password") and super().lookup_allowed(lookup, value, request)

    def save_model(self, request, obj, form, change):
        try:
            user_save(user=obj)
        except AdminActionError as error:
            # Another admin was switched off between the form's check and this save: nothing was saved.
            self.message_user(request, str(error), level=messages.ERROR)

    def delete_refusal(self, request, obj):
        return user_delete_refusal(actor=request.user, user=obj)

    def delete_through_service(self, request, obj):
        try:
            user_delete(actor=request.user, user_id=obj.pk, meta=AuditMeta.from_request(request))
        except AdminActionError as error:
            raise ValidationError(str(error)) from error

    def save_formset(self, request, form, formset, change):
        if formset.model is not UserRole:
            return super().save_formset(request, form, formset, change)
        formset.save(commit=False)  # only collects what was added and ticked for deletion
        meta = AuditMeta.from_request(request)
        for new in formset.new_objects:
            role_grant(user=form.instance, role=new.role, meta=meta)
        for gone in formset.deleted_objects:
            try:
                role_revoke(user=form.instance, role=gone.role, meta=meta)
            except AdminActionError as error:
                self.message_user(request, str(error), level=messages.ERROR)
        return None


class UserRoleAddForm(forms.ModelForm):
    class Meta:
        model = UserRole
        fields = ["user", "role"]


@admin.register(UserRole)
class UserRoleAdmin(ReadableAutocompleteMixin, ServiceDeleteMixin, admin.ModelAdmin):
    """Granted and revoked through admin_grant/admin_revoke; a role row is never edited."""

    form = UserRoleAddForm
    list_display = ["user", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__email", "user__full_name"]
    autocomplete_fields = ["user"]
    list_select_related = ["user"]

    def has_change_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        role_grant(user=obj.user, role=obj.role, meta=AuditMeta.from_request(request))
        obj.pk = UserRole.objects.get(user=obj.user, role=obj.role).pk

    def delete_refusal(self, request, obj):
        return MESSAGE_OWN_ROLE if obj.user_id == request.user.pk else None

    def delete_through_service(self, request, obj):
        if self.delete_refusal(request, obj):
            raise ValidationError(MESSAGE_OWN_ROLE)
        try:
            role_revoke(user=obj.user, role=obj.role, meta=AuditMeta.from_request(request))
        except AdminActionError as error:
            raise ValidationError(str(error)) from error


# allauth's own admin for second factors would let an admin type a factor's raw data (keys, counters) into
# a JSON field: a factor is made only by its member on /account. Here an admin sees them and can delete
# one a member lost.
admin.site.unregister(Authenticator)


@admin.register(Authenticator)
class SecondFactorAdmin(AuthenticatorAdmin):
    readonly_fields = ("user", "type", "created_at", "last_used_at")
    exclude = ("data",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def delete_model(self, request, obj):
        second_factor_remove(authenticator=obj, meta=AuditMeta.from_request(request))

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)
