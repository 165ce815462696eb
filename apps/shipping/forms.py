"""The postal address forms (the member's and the Django admin's): they validate input; the rules are in services."""

from typing import TYPE_CHECKING

from django import forms
from django.db import models

from .models import PostalAddress
from .services import MESSAGE_ADDRESS_TOO_LONG, postcode_normalise

if TYPE_CHECKING:
    _FormBase = forms.Form
else:
    _FormBase = object


class PostcodeNormalisedMixin(_FormBase):
    """The postcode checked as the service stores it: upper() makes "ß" two letters, so 20 of them, which
    passed the field's own length check, are 40 and are refused here, not by the database."""

    def clean_postcode(self):
        postcode = postcode_normalise(self.cleaned_data.get("postcode") or "")
        field = PostalAddress._meta.get_field("postcode")
        assert isinstance(field, models.CharField) and field.max_length is not None
        max_length = field.max_length
        if len(postcode) > max_length:
            raise forms.ValidationError(MESSAGE_ADDRESS_TOO_LONG.format(field="Postcode", max=max_length))
        return postcode


class PostalAddressForm(PostcodeNormalisedMixin, forms.ModelForm):
    class Meta:
        model = PostalAddress
        fields = ["recipient", "street", "postcode", "city", "country"]
        labels = {"recipient": "T.a.v. (als het niet je eigen naam is)"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # All optional here: empty means "no address", the service says what a half address misses.
        for field in self.fields.values():
            field.required = False
        self.fields["street"].widget.attrs["autocomplete"] = "street-address"
        self.fields["postcode"].widget.attrs["autocomplete"] = "postal-code"
        self.fields["city"].widget.attrs["autocomplete"] = "address-level2"
        self.fields["country"].widget.attrs["autocomplete"] = "country-name"
