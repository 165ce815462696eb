from django import forms
from django.contrib import admin

from apps.core.admin_widgets import ReadableAutocompleteMixin

from .forms import PostcodeNormalisedMixin
from .models import PostalAddress
from .services import postal_address_delete, postal_address_save


class PostalAddressAdminForm(PostcodeNormalisedMixin, forms.ModelForm):
    class Meta:
        model = PostalAddress
        fields = ["user", "recipient", "street", "postcode", "city", "country"]


@admin.register(PostalAddress)
class PostalAddressAdmin(ReadableAutocompleteMixin, admin.ModelAdmin):
    """Members' addresses for physical badges: seen by admins only; written through the member's service."""

    form = PostalAddressAdminForm

    list_display = ["user", "street", "postcode", "city", "country", "updated_at"]
    search_fields = ["user__email", "user__full_name", "postcode", "city"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
    actions = None

    def save_model(self, request, obj, form, change):
        saved = postal_address_save(
            user=obj.user,
            **{key: form.cleaned_data.get(key) or "" for key in ("recipient", "street", "postcode", "city", "country")},
        )
        obj.pk = saved.pk if saved else obj.pk

    def delete_model(self, request, obj):
        postal_address_delete(user=obj.user)
