from django.urls import path, register_converter

from . import guest_views, views


class EventIdConverter:
    """A primary key that fits a 64-bit column: a longer number is a 404, not a database overflow."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(EventIdConverter, "event_id")


class FeedTokenConverter:
    """The shape of a calendar token (secrets.token_urlsafe): anything else is a 404 without a query."""

    regex = "[A-Za-z0-9_-]{20,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(FeedTokenConverter, "feed_token")


class GuestTokenConverter:
    """The shape of a guest link's token (secrets.token_urlsafe(24)): anything else is a 404 without a query."""

    regex = "[A-Za-z0-9_-]{20,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(GuestTokenConverter, "guest_token")


class SignedTokenConverter:
    """A signed cancel or confirmation token (django.core.signing: base64 and colons), bounded in length."""

    regex = "[A-Za-z0-9_:.-]{20,400}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SignedTokenConverter, "signed_token")

urlpatterns = [
    path("events", views.events_page, name="events"),
    path("events/<event_id:event_id>", views.event_page, name="event"),
    path("events/<event_id:event_id>/aanmelden", views.join, name="event_join"),
    path("events/<event_id:event_id>/afmelden", views.leave, name="event_leave"),
    path("events/<event_id:event_id>/ik-kom", views.offer_accept, name="event_offer_accept"),
    path("events/<event_id:event_id>/ik-kan-niet", views.offer_decline, name="event_offer_decline"),
    path("events/<event_id:event_id>.ics", views.ics, name="event_ics"),
    path("events/reeks/<event_id:series_id>/elke-week", views.series_join_view, name="event_series_join"),
    path("events/reeks/<event_id:series_id>/stoppen", views.series_leave_view, name="event_series_leave"),
    path("events/gast/afmelden/<signed_token:token>", guest_views.guest_cancel_page, name="event_guest_cancel"),
    path("events/gast/bevestigen/<signed_token:token>", guest_views.guest_confirm_page, name="event_guest_confirm"),
    path("events/gast/<guest_token:token>", guest_views.guest_sign_up_page, name="event_guest_sign_up"),
    path("agenda/vernieuwen", views.calendar_renew, name="calendar_renew"),
    path("agenda/<feed_token:token>.ics", views.calendar_feed, name="calendar_feed"),
]
