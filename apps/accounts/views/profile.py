"""/account writes: name, e-mail and newsletter; the password; deleting the account.

Each answers a refused form with the account page and the form's messages (400); the page's sections
pick the bound form up from the context (apps/accounts/templatetags/account_profile.py).

A session alone is not enough for a new e-mail address: allauth's reauthentication asks for the password (or
a passkey) first, then sends the form on by itself. Every check of the current password is rate limited
(allauth's limits "change_password" and "reauthenticate"), so a borrowed session cannot guess it.
"""

from allauth.account.decorators import reauthentication_required
from allauth.core import ratelimit
from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ..forms import AccountDeleteForm, PasswordChangeForm, ProfileForm, add_service_errors
from ..removal import AccountDeletionError, account_delete
from ..services import account_password_change, account_profile_update

MESSAGE_PROFILE_SAVED = "Je gegevens zijn opgeslagen."
MESSAGE_EMAIL_LINK_SENT = (
    "We hebben een link gestuurd naar {email}. Open die om je nieuwe e-mailadres te bevestigen; "
    "tot dan blijft {current} je e-mailadres."
)
MESSAGE_TOO_MANY_CHECKS = (
    "Je hebt dit te vaak achter elkaar geprobeerd. Wacht een paar minuten en probeer het dan opnieuw."
)
MESSAGE_TOO_MANY_EMAIL_CHANGES = (
    "Je hebt al een paar keer een nieuw e-mailadres gevraagd. Wacht even en probeer het dan opnieuw."
)
MESSAGE_PASSWORD_CHANGED = "Je wachtwoord is gewijzigd."  # noqa: S105 - a message
MESSAGE_ACCOUNT_DELETED = "Je account en al je gegevens zijn verwijderd. Bedankt voor het meezwemmen!"


def _refused(request, status=400, **forms):
    return render(request, "accounts/account.html", forms, status=status)


def _refused_too_many(request, **forms):
    for form in forms.values():
        form.full_clean()  # the form's own checks only: the password itself is not tried now
        form.add_error(None, MESSAGE_TOO_MANY_CHECKS)
    return _refused(request, status=429, **forms)


def _asks_new_email(request) -> bool:
    typed = request.POST.get(ProfileForm.for_user(request.user).add_prefix("email"), "")
    return typed.strip().lower() != request.user.email.lower()


def _too_many(request, action: str) -> bool:
    return not ratelimit.consume(request, action=action, user=request.user)


@login_required
@require_POST
@reauthentication_required(enabled=_asks_new_email)
def profile_update(request):
    form = ProfileForm.for_user(request.user, data=request.POST)
    if form.is_valid():
        if _asks_new_email(request) and _too_many(request, "manage_email"):
            form.add_error(None, MESSAGE_TOO_MANY_EMAIL_CHANGES)
            return _refused(request, status=429, profile_form=form)
        current = request.user.email
        try:
            new_email = account_profile_update(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, MESSAGE_PROFILE_SAVED)
            if new_email:
                messages.info(request, MESSAGE_EMAIL_LINK_SENT.format(email=new_email, current=current))
            return redirect("account")
    return _refused(request, profile_form=form)


@login_required
@require_POST
def password_change(request):
    form = PasswordChangeForm(data=request.POST)
    if _too_many(request, "change_password"):
        return _refused_too_many(request, password_form=form)
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
    if _too_many(request, "reauthenticate"):
        return _refused_too_many(request, delete_form=form)
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
