from django.urls import path, register_converter

from . import views


class EventIdConverter:
    """A primary key that fits a 64-bit column: a longer number is a 404, not a database overflow."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(EventIdConverter, "event_id")

urlpatterns = [
    path("events/<event_id:event_id>/aanmelden", views.join, name="event_join"),
    path("events/<event_id:event_id>/afmelden", views.leave, name="event_leave"),
    path("events/<event_id:event_id>.ics", views.ics, name="event_ics"),
]
