from allauth.account import views as allauth_views
from django.urls import path, re_path
from django.views.generic import RedirectView

from .views import account, auth, profile

urlpatterns = [
    path("auth", auth.auth_page, name="auth"),
    path("uitloggen", auth.logout_view, name="logout"),
    path("account", account.account_page, name="account"),
    path("account/profiel", profile.profile_update, name="account_profile"),
    path("account/wachtwoord", profile.password_change, name="account_password"),
    path("account/verwijderen", profile.delete, name="account_delete"),
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
