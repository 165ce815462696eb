from django import forms
from django.contrib import admin
from django.db.models import Count, Exists, OuterRef

from .models import User, UserRole
from .passwords import password_length_validate


class UserRoleInline(admin.TabularInline):
    model = UserRole
    extra = 0


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
class UserAdmin(admin.ModelAdmin):
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
                has_admin_role=Exists(UserRole.objects.filter(user=OuterRef("pk"), role=UserRole.Role.ADMIN)),
            )
        )

    @admin.display(description="admin", boolean=True, ordering="has_admin_role")
    def is_admin_role(self, obj):
        return obj.has_admin_role

    @admin.display(description="plonsen", ordering="dip_total")
    def dip_count(self, obj):
        return obj.dip_total


@admin.register(UserRole)
class UserRoleAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__email", "user__full_name"]
    autocomplete_fields = ["user"]
    list_select_related = ["user"]
