from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from config import views

admin.site.site_header = "Koud water challenge: beheer"
admin.site.site_title = "Koud water challenge"
admin.site.index_title = "Gegevens beheren"

urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
    path("privacy", views.privacy, name="privacy"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("offline", views.offline, name="offline"),
    path("", include("apps.accounts.urls")),
    path("", include("apps.challenges.urls")),
    path("", include("apps.shipping.urls")),
    path("", include("apps.events.urls")),
    path("", include("apps.attendance.urls")),
    path("", include("apps.adminpanel.urls")),
    path("", include("apps.notifications.urls")),
    path("", include("apps.logbook.urls")),
    path("", include("apps.club.urls")),
    path("", include("apps.together.urls")),
    path("", include("apps.operations.urls")),
    # One sign-in for everyone, through /auth and allauth's rate limits; Django's own login form has none.
    path("django-admin/login/", RedirectView.as_view(url="/auth", query_string=True)),
    path("django-admin/", admin.site.urls),
]

handler400 = "config.views.bad_request"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
