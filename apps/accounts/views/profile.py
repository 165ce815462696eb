"""/account writes: name, e-mail and newsletter; the password; deleting the account.

Each answers a refused form with the account page and the form's messages (400); the page's sections
pick the bound form up from the context (apps/accounts/templatetags/account_profile.py).
"""

from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ..forms import AccountDeleteForm, PasswordChangeForm, ProfileForm, add_service_errors
from ..services import AccountDeletionError, account_delete, account_password_change, account_profile_update

MESSAGE_PROFILE_SAVED = "Je gegevens zijn opgeslagen."
MESSAGE_PASSWORD_CHANGED = "Je wachtwoord is gewijzigd."  # noqa: S105 - a message
MESSAGE_ACCOUNT_DELETED = "Je account en al je gegevens zijn verwijderd. Bedankt voor het meezwemmen!"


def _refused(request, **forms):
    return render(request, "accounts/account.html", forms, status=400)


@login_required
@require_POST
def profile_update(request):
    form = ProfileForm.for_user(request.user, data=request.POST)
    if form.is_valid():
        try:
            account_profile_update(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, MESSAGE_PROFILE_SAVED)
            return redirect("account")
    return _refused(request, profile_form=form)


@login_required
@require_POST
def password_change(request):
    form = PasswordChangeForm(data=request.POST)
    if form.is_valid():
        try:
            account_password_change(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            # Stay signed in here; other sessions with the old password end.
            update_session_auth_hash(request, request.user)
            messages.success(request, MESSAGE_PASSWORD_CHANGED)
            return redirect("account")
    return _refused(request, password_form=form)


@login_required
@require_POST
def delete(request):
    form = AccountDeleteForm(data=request.POST)
    if form.is_valid():
        try:
            account_delete(user=request.user, password=form.cleaned_data["password"])
        except ValidationError as error:
            add_service_errors(form, error)
        except AccountDeletionError as error:
            form.add_error(None, str(error))
        else:
            logout(request)
            messages.success(request, MESSAGE_ACCOUNT_DELETED)
            return redirect("landing")
    return _refused(request, delete_form=form)
