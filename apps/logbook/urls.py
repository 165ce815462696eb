from django.urls import path

from . import views

urlpatterns = [
    path("statistieken", views.statistics, name="statistics"),
    path("account/export", views.export, name="account_export"),
]
