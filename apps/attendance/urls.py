from django.urls import path

import apps.events.urls  # noqa: F401  (registers the event_id converter used below)

from . import views

urlpatterns = [
    path("events/<event_id:event_id>/waterkant", views.event_waterkant, name="event_waterkant"),
    path("events/<event_id:event_id>/waterkant/stand", views.event_waterkant_state, name="event_waterkant_state"),
    path("events/<event_id:event_id>/waterkant/tik", views.event_waterkant_tap, name="event_waterkant_tap"),
    path("events/<event_id:event_id>/waterkant/lid", views.event_waterkant_member, name="event_waterkant_member"),
    path("events/<event_id:event_id>/waterkant/dicht", views.event_waterkant_close, name="event_waterkant_close"),
]
