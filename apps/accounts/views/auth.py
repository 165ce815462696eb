"""/auth (sign-in and invitation sign-up on one page, two tabs) and sign-out."""

import logging
from urllib.parse import urlencode

from allauth.account.adapter import get_adapter
from allauth.core import ratelimit
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from apps.invitations.services import invitation_code_normalize

from ..forms import RegisterForm, SignInForm
from ..services import MESSAGE_SIGNUP_FAILED, account_register

logger = logging.getLogger(__name__)

TAB_LOGIN = "inloggen"
TAB_REGISTER = "registreren"
MESSAGE_SIGNED_UP = "Account aangemaakt! Je kunt nu inloggen."
MESSAGE_SIGNED_OUT = "Je bent uitgelogd."
MESSAGE_TOO_MANY_REQUESTS = "Te veel pogingen achter elkaar. Wacht een minuut en probeer het dan opnieuw."
# After sign-up the Inloggen tab shows the new address; kept in the session, not in the URL (logs, history).
SESSION_SIGNED_UP_EMAIL = "auth_signed_up_email"


def _safe_next(request) -> str:
    """The page to return to after sign-in: only a path on this site, never /auth itself."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    if not url or not url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return ""
    if not url.startswith("/") or url.startswith("//") or url.split("?")[0] == settings.LOGIN_URL:
        return ""
    return url


def _auth_url(*, tab: str = TAB_LOGIN, next_url: str = "", tab_link: bool = False) -> str:
    query = {}
    # A tab link names its tab, so the page it opens knows the member switched tabs (see `_focus_first_field`).
    if tab == TAB_REGISTER or tab_link:
        query["tab"] = tab
    if next_url:
        query["next"] = next_url
    return settings.LOGIN_URL + ("?" + urlencode(query) if query else "")


def _render(request, *, tab: str, form, next_url: str, error: str = "", status: int = 200):
    context = {
        "tab": tab,
        "form": form,
        "error": error,
        "next_url": next_url,
        "login_tab_url": _auth_url(tab=TAB_LOGIN, next_url=next_url, tab_link=True),
        "register_tab_url": _auth_url(tab=TAB_REGISTER, next_url=next_url, tab_link=True),
    }
    return render(request, "accounts/auth.html", context, status=status)


@never_cache
@sensitive_post_parameters("password")
@require_http_methods(["GET", "HEAD", "POST"])
def auth_page(request):
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    next_url = _safe_next(request)
    if request.method == "POST":
        if request.POST.get("form") == TAB_REGISTER:
            return _register(request, next_url)
        return _sign_in(request, next_url)

    switched_tab = request.GET.get("tab") in (TAB_LOGIN, TAB_REGISTER)
    if request.GET.get("tab") == TAB_REGISTER or "invite" in request.GET:
        code = invitation_code_normalize(request.GET.get("invite"))
        form = RegisterForm(initial={"code": code})
        if switched_tab:
            # The tabs are links: after a switch the keyboard starts on the first field to fill in.
            _focus(form, "full_name" if code else "code")
        return _render(request, tab=TAB_REGISTER, form=form, next_url=next_url)
    signed_up_email = request.session.pop(SESSION_SIGNED_UP_EMAIL, "")
    form = SignInForm(request=request, initial={"login": signed_up_email})
    if signed_up_email:
        # The address is filled in already: the member only has to type the new password.
        _focus(form, "password")
    elif switched_tab:
        _focus(form, "login")
    return _render(request, tab=TAB_LOGIN, form=form, next_url=next_url)


def _focus(form, field_name: str) -> None:
    form.fields[field_name].widget.attrs["autofocus"] = True


def _sign_in(request, next_url: str):
    # allauth's LoginView limits attempts per IP ("login"); failed ones per address are limited inside the form.
    if not ratelimit.consume(request, action="login"):
        # An unbound form: validating this one would try the password, which is what we refuse to do now.
        form = SignInForm(request=request, initial={"login": request.POST.get("login", "")})
        return _render(
            request, tab=TAB_LOGIN, form=form, next_url=next_url, error=MESSAGE_TOO_MANY_REQUESTS, status=429
        )
    form = SignInForm(data=request.POST, request=request)
    if form.is_valid():
        # allauth signs in, records the login and redirects.
        return form.login(request, redirect_url=next_url or settings.LOGIN_REDIRECT_URL)
    return _render(request, tab=TAB_LOGIN, form=form, next_url=next_url)


def _register(request, next_url: str):
    if not ratelimit.consume(request, action="signup"):
        typed = {name: request.POST.get(name, "") for name in ("code", "full_name", "email")}
        typed["newsletter_consent"] = bool(request.POST.get("newsletter_consent"))
        form = RegisterForm(initial=typed)
        return _render(
            request, tab=TAB_REGISTER, form=form, next_url=next_url, error=MESSAGE_TOO_MANY_REQUESTS, status=429
        )
    form = RegisterForm(data=request.POST)
    if form.is_valid():
        try:
            user = account_register(**form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        except DatabaseError:
            logger.exception("Sign-up failed")
            form.add_error(None, MESSAGE_SIGNUP_FAILED)
        else:
            messages.success(request, MESSAGE_SIGNED_UP)
            request.session[SESSION_SIGNED_UP_EMAIL] = user.email
            return redirect(_auth_url(tab=TAB_LOGIN, next_url=next_url))
    return _render(request, tab=TAB_REGISTER, form=form, next_url=next_url)


@require_http_methods(["GET", "HEAD", "POST"])
def logout_view(request):
    """'Uitloggen' is a form POST (a link could be triggered by any page); it ends the session and goes to /.
    A GET (a typed or bookmarked address) shows the sign-out button instead of a bare 405."""
    if request.method != "POST":
        if not request.user.is_authenticated:
            return redirect(settings.LOGOUT_REDIRECT_URL)
        return render(request, "accounts/logout.html")
    if request.user.is_authenticated:
        get_adapter(request).logout(request)
        messages.success(request, MESSAGE_SIGNED_OUT)
    return redirect(settings.LOGOUT_REDIRECT_URL)
