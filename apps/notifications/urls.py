from django.urls import path

from . import views

urlpatterns = [
    path("mail/afmelden/<str:token>", views.unsubscribe, name="mail_unsubscribe"),
    path("account/e-mailvoorkeuren", views.preferences_update, name="mail_preferences"),
]
