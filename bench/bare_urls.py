"""The app's URLs plus one bare signed-in page, for bench/page_cost.py only (never served by the app)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import include, path


@login_required
def bare(request):
    """The session, the signed-in user and a few bytes: the floor every member page stands on."""
    return HttpResponse(f"Hallo {request.user.pk}")


urlpatterns = [
    path("bench/kaal", bare),
    path("", include("config.urls")),
]
