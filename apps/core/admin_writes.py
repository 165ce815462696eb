"""Django admin deletes that go through a service.

A ModelAdmin with this mixin deletes each object by calling `delete_through_service`, the same service
the pages use, so the business rules hold there too. The service (not the admin) removes what hangs on
the object, so only the object's own permission and the service's refusals are checked: a refusal is
shown in Dutch on the confirmation page, which then offers no way to confirm.
"""

from typing import TYPE_CHECKING

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError

if TYPE_CHECKING:
    _ModelAdminBase = admin.ModelAdmin
else:
    _ModelAdminBase = object


class ServiceDeleteMixin(_ModelAdminBase):
    delete_confirmation_template = "admin/service_delete_confirmation.html"

    def delete_through_service(self, request, obj) -> None:
        """Delete `obj` through its service; raise ValidationError (Dutch) to refuse."""
        raise NotImplementedError

    def delete_refusal(self, request, obj) -> str | None:
        """The Dutch reason why `obj` may not be deleted by this admin, or None. Checked before confirming."""
        return None

    def get_deleted_objects(self, objs, request):
        to_delete, model_count, _cascade_permissions, protected = super().get_deleted_objects(objs, request)
        refusals = {reason for obj in objs if (reason := self.delete_refusal(request, obj))}
        if any(not self.has_delete_permission(request, obj) for obj in objs):
            refusals.add(str(self.opts.verbose_name))
        return to_delete, model_count, refusals, protected

    def delete_model(self, request, obj):
        try:
            self.delete_through_service(request, obj)
        except ValidationError as error:
            # Between confirming and deleting someone else changed the data: say why nothing happened.
            self.message_user(request, " ".join(error.messages), level=messages.ERROR)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


class ServiceDeleteAdmin(ServiceDeleteMixin, admin.ModelAdmin):
    pass


class ServiceMadeForm(forms.ModelForm):
    """A Django admin add form whose clean() already made the object through its service (under the
    service's lock and rules, so a refusal is a normal form error): saving only hands that object back."""

    def validate_unique(self):
        """The service has enforced uniqueness; the row it made must not count as a clash with itself."""

    def save(self, commit=True):
        self.save_m2m = lambda: None  # type: ignore[method-assign]  # as Django's own save(commit=False) does
        return self.instance
