"""The Django admin's autocomplete, safe with any input.

Django's AutocompleteSelect looks the chosen ids up in the database while it draws the form again; an id the
field cannot read (" ", "²") was already refused by the form, but the lookup with it is a 500. Every
ModelAdmin with `autocomplete_fields` takes this mixin (tests/security/test_no_server_errors.py posts such
values to every add form of the Django admin).
"""

from typing import TYPE_CHECKING

from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError


class ReadableAutocompleteSelect(AutocompleteSelect):
    def optgroups(self, name, value, attr=None):
        target = self.field.remote_field.model._meta.get_field(self.field.remote_field.field_name)
        return super().optgroups(name, [v for v in value if _readable(target, v)], attr)


def _readable(field, value) -> bool:
    try:
        field.to_python(value)
    except ValidationError:
        return False
    return True


if TYPE_CHECKING:
    _ModelAdminBase = admin.ModelAdmin
else:
    _ModelAdminBase = object


class ReadableAutocompleteMixin(_ModelAdminBase):
    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = ReadableAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
