from allauth.account import views as allauth_views
from allauth.mfa.base import views as mfa
from allauth.mfa.recovery_codes import views as recovery_codes
from allauth.mfa.totp import views as totp
from allauth.mfa.webauthn import views as webauthn
from django.urls import include, path, re_path
from django.views.decorators.http import require_http_methods
from django.views.generic import RedirectView

from .views import account, auth, profile, second_step

# allauth's form views take PUT as POST; these pages are forms and links, nothing more.
forms_only = require_http_methods(["GET", "HEAD", "POST"])

# Passkeys and the second factor: allauth's MFA views in our layout (templates/allauth/), at Dutch addresses
# (allauth.mfa.urls has English ones). Recovery codes and adding or removing a factor first ask for the
# password or a passkey again (allauth's reauthentication, the pages under /auth/opnieuw).
passkey_pages = [
    path("wijzigen", forms_only(webauthn.edit_webauthn), name="mfa_edit_webauthn"),
    path("verwijderen", forms_only(webauthn.remove_webauthn), name="mfa_remove_webauthn"),
]

security_pages = [
    path("", forms_only(mfa.index), name="mfa_index"),
    path("app/instellen", forms_only(totp.activate_totp), name="mfa_activate_totp"),
    path("app/uitzetten", forms_only(totp.deactivate_totp), name="mfa_deactivate_totp"),
    path("herstelcodes", forms_only(recovery_codes.view_recovery_codes), name="mfa_view_recovery_codes"),
    path("herstelcodes/nieuw", forms_only(recovery_codes.generate_recovery_codes), name="mfa_generate_recovery_codes"),
    path(
        "herstelcodes/download",
        forms_only(recovery_codes.download_recovery_codes),
        name="mfa_download_recovery_codes",
    ),
    path("passkeys", forms_only(webauthn.list_webauthn), name="mfa_list_webauthn"),
    path("passkeys/toevoegen", forms_only(webauthn.add_webauthn), name="mfa_add_webauthn"),
    path("passkeys/<int:pk>/", include(passkey_pages)),
]

account_pages = [
    path("profiel", profile.profile_update, name="account_profile"),
    path("wachtwoord", profile.password_change, name="account_password"),
    path("verwijderen", profile.delete, name="account_delete"),
    path("beveiliging/", include(security_pages)),
    # The link in the mail to a new address (allauth's signed key); a button on the page confirms it.
    re_path(r"^e-mailadres-bevestigen/(?P<key>[-:\w]+)$", allauth_views.confirm_email, name="account_confirm_email"),
]

# "Bevestig dat jij het bent": allauth's reauthentication with the password or a passkey (AccountAdapter).
reauthentication_pages = [
    path("", forms_only(allauth_views.reauthenticate), name="account_reauthenticate"),
    path("passkey", forms_only(webauthn.reauthenticate_webauthn), name="mfa_reauthenticate_webauthn"),
]

# Password reset by e-mail: allauth's views, our Dutch templates (templates/account/).
password_reset_pages = [
    path("wachtwoord-vergeten", allauth_views.password_reset, name="account_reset_password"),
    path("wachtwoord-vergeten/verstuurd", allauth_views.password_reset_done, name="account_reset_password_done"),
    re_path(
        r"^wachtwoord-herstellen/(?P<uidb36>[0-9A-Za-z]+)-(?P<key>.+)$",
        allauth_views.password_reset_from_key,
        name="account_reset_password_from_key",
    ),
    path(
        "wachtwoord-hersteld", allauth_views.password_reset_from_key_done, name="account_reset_password_from_key_done"
    ),
]

# allauth refers to its own login, sign-up and sign-out pages by these names. Only /auth exists:
# sign-up goes through an invitation there, never through allauth's signup view.
allauth_page_names = [
    path("login/", RedirectView.as_view(url="/auth", query_string=True), name="account_login"),
    path("signup/", RedirectView.as_view(url="/auth?tab=registreren"), name="account_signup"),
    path("logout/", auth.logout_view, name="account_logout"),
]

urlpatterns = [
    path("auth", auth.auth_page, name="auth"),
    path("auth/tweede-stap", forms_only(second_step.second_step), name="mfa_authenticate"),
    path("auth/opnieuw/", include(reauthentication_pages)),
    path("auth/passkey", forms_only(webauthn.login_webauthn), name="mfa_login_webauthn"),
    path("auth/", include(password_reset_pages)),
    path("auth/", include(allauth_page_names)),
    path("uitloggen", auth.logout_view, name="logout"),
    path("account", account.account_page, name="account"),
    path("account/", include(account_pages)),
]
