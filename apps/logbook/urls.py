from django.urls import path

from . import views

urlpatterns = [
    path("statistieken", views.statistics, name="statistics"),
    path("account/export", views.export, name="account_export"),
    path("account/export/download", views.export_download, name="account_export_download"),
    path("account/export/bestand/<str:token>", views.export_file, name="account_export_file"),
]
