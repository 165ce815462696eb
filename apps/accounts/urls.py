from allauth.account import views as allauth_views
from allauth.mfa.base import views as mfa_views
from allauth.mfa.recovery_codes import views as recovery_code_views
from allauth.mfa.totp import views as totp_views
from allauth.mfa.webauthn import views as webauthn_views
from django.urls import path, re_path
from django.views.decorators.http import require_http_methods
from django.views.generic import RedirectView

from .views import account, auth, profile

# allauth's form views take PUT as POST; these pages are forms and links, nothing more.
forms_only = require_http_methods(["GET", "HEAD", "POST"])

urlpatterns = [
    path("auth", auth.auth_page, name="auth"),
    path("uitloggen", auth.logout_view, name="logout"),
    path("account", account.account_page, name="account"),
    path("account/profiel", profile.profile_update, name="account_profile"),
    path("account/wachtwoord", profile.password_change, name="account_password"),
    path("account/verwijderen", profile.delete, name="account_delete"),
    # Passkeys and the second factor: allauth's MFA views in our layout (templates/allauth/), Dutch. Not its
    # re-authentication pages: adding or removing a factor happens in the member's own signed-in session.
    path("account/beveiliging/", forms_only(mfa_views.index), name="mfa_index"),
    path("auth/tweede-stap", forms_only(mfa_views.authenticate), name="mfa_authenticate"),
    path("auth/passkey", forms_only(webauthn_views.login_webauthn), name="mfa_login_webauthn"),
    path("account/beveiliging/app/instellen", forms_only(totp_views.activate_totp), name="mfa_activate_totp"),
    path("account/beveiliging/app/uitzetten", forms_only(totp_views.deactivate_totp), name="mfa_deactivate_totp"),
    path(
        "account/beveiliging/herstelcodes",
        forms_only(recovery_code_views.view_recovery_codes),
        name="mfa_view_recovery_codes",
    ),
    path(
        "account/beveiliging/herstelcodes/nieuw",
        forms_only(recovery_code_views.generate_recovery_codes),
        name="mfa_generate_recovery_codes",
    ),
    path(
        "account/beveiliging/herstelcodes/download",
        forms_only(recovery_code_views.download_recovery_codes),
        name="mfa_download_recovery_codes",
    ),
    path("account/beveiliging/passkeys", forms_only(webauthn_views.list_webauthn), name="mfa_list_webauthn"),
    path("account/beveiliging/passkeys/toevoegen", forms_only(webauthn_views.add_webauthn), name="mfa_add_webauthn"),
    path(
        "account/beveiliging/passkeys/<int:pk>/wijzigen",
        forms_only(webauthn_views.edit_webauthn),
        name="mfa_edit_webauthn",
    ),
    path(
        "account/beveiliging/passkeys/<int:pk>/verwijderen",
        forms_only(webauthn_views.remove_webauthn),
        name="mfa_remove_webauthn",
    ),
    # Password reset by e-mail: allauth's views, our Dutch templates (templates/account/).
    path("auth/wachtwoord-vergeten", allauth_views.password_reset, name="account_reset_password"),
    path("auth/wachtwoord-vergeten/verstuurd", allauth_views.password_reset_done, name="account_reset_password_done"),
    re_path(
        r"^auth/wachtwoord-herstellen/(?P<uidb36>[0-9A-Za-z]+)-(?P<key>.+)$",
        allauth_views.password_reset_from_key,
        name="account_reset_password_from_key",
    ),
    path(
        "auth/wachtwoord-hersteld",
        allauth_views.password_reset_from_key_done,
        name="account_reset_password_from_key_done",
    ),
    # allauth refers to its own login, sign-up and sign-out pages by these names. Only /auth exists:
    # sign-up goes through an invitation there, never through allauth's signup view.
    path("auth/login/", RedirectView.as_view(url="/auth", query_string=True), name="account_login"),
    path("auth/signup/", RedirectView.as_view(url="/auth?tab=registreren"), name="account_signup"),
    path("auth/logout/", auth.logout_view, name="account_logout"),
]
