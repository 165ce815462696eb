from django.urls import path

from apps.events.urls import EventIdConverter  # noqa: F401 - registers the "event_id" converter (64-bit ids)

from . import reply_views, views

urlpatterns = [
    path("samen", views.samen, name="together"),
    path("samen/nieuw", views.propose, name="meetup_propose"),
    path("samen/<event_id:meetup_id>", views.meetup_page, name="meetup"),
    path("samen/<event_id:meetup_id>/reageren", reply_views.meetup_reply, name="meetup_reply"),
    path("events/<event_id:event_id>/reageren", reply_views.event_reply, name="event_reply"),
    path("reacties/<event_id:reply_id>/verwijderen", reply_views.delete, name="reply_delete"),
    path("samen/<event_id:meetup_id>/ik-ga-mee", views.join, name="meetup_join"),
    path("samen/<event_id:meetup_id>/toch-niet", views.leave, name="meetup_leave"),
    path("samen/<event_id:meetup_id>/annuleren", views.cancel, name="meetup_cancel"),
    path("samen/buddy/<event_id:tag_id>/op-mijn-kaart", views.buddy_yes, name="buddy_accept"),
    path("samen/buddy/<event_id:tag_id>/klopt-niet", views.buddy_no, name="buddy_decline"),
    path("account/taggen", views.tagging, name="tagging_setting"),
    path("samen/clubgenoten", views.candidates, name="buddy_candidates"),
    path("veilig", views.veilig, name="veilig"),
    path("veilig/gelezen", views.briefing, name="briefing_read"),
]
