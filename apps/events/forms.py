"""The guest's sign-up form: it checks the input's shape; the rules (and their messages) live in the services."""

from django import forms

from apps.accounts.forms import DescribedErrorsMixin

from .services import EMAIL_MAX_LENGTH, NAME_MAX_LENGTH


class GuestSignUpForm(DescribedErrorsMixin, forms.Form):
    # No max_length/required in the browser's hands: its own (English) bubbles would replace our Dutch messages.
    name = forms.CharField(
        label="Naam",
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "name", "maxlength": NAME_MAX_LENGTH}),
    )
    email = forms.CharField(
        label="E-mailadres",
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "inputmode": "email", "maxlength": EMAIL_MAX_LENGTH}),
    )
    safety_agreed = forms.BooleanField(label="Ik heb de veiligheidsregels gelezen en ga ermee akkoord", required=False)
