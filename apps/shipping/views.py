"""The member's postal address on /account, for physical badges only."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from .forms import PostalAddressForm
from .services import ChallengeError, postal_address_delete, postal_address_save

ADDRESS_ANCHOR = "postadres"
MESSAGE_SAVED = "Je postadres is opgeslagen."
MESSAGE_REMOVED = "Je postadres is verwijderd."


def account_address_url() -> str:
    return reverse("account") + f"#{ADDRESS_ANCHOR}"


@login_required
@require_POST
def postal_address(request):
    if request.POST.get("verwijderen"):
        postal_address_delete(user=request.user)
        messages.success(request, MESSAGE_REMOVED)
        return redirect(account_address_url())
    form = PostalAddressForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))
        return redirect(account_address_url())
    try:
        saved = postal_address_save(user=request.user, **{key: form.cleaned_data[key] or "" for key in form.fields})
    except ChallengeError as error:
        messages.error(request, str(error))
        return redirect(account_address_url())
    messages.success(request, MESSAGE_SAVED if saved else MESSAGE_REMOVED)
    return redirect(account_address_url())
