from django.urls import path

from . import push_views, views

urlpatterns = [
    path("mail/afmelden/<str:token>", views.unsubscribe, name="mail_unsubscribe"),
    path("account/e-mailvoorkeuren", views.preferences_update, name="mail_preferences"),
    path("meldingen/abonnement", push_views.subscribe, name="notice_subscribe"),
    path("meldingen/apparaat/<str:subscription_id>/verwijderen", push_views.device_delete, name="notice_device_delete"),
    path("meldingen/voorkeuren", push_views.preferences, name="notice_preferences"),
]
