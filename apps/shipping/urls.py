from django.urls import path

from . import views

urlpatterns = [
    path("account/postadres", views.postal_address, name="postal_address"),
]
