"""Forms of the challenges app: they validate input; the rules are in services."""

from django import forms

from .models import PostalAddress


class PostalAddressForm(forms.ModelForm):
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
