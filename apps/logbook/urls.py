from django.urls import path

from . import views

urlpatterns = [
    path("statistieken", views.statistics, name="statistics"),
]
