from django.urls import include, path

from .views import badge_art, challenge, club, dashboard, dip_edit, photos

# Taking part: starting, registering a dip (and correcting or undoing it), stopping.
challenge_pages = [
    path("start", dashboard.start, name="challenge_start"),
    path("plons", challenge.register_dip, name="dip_register"),
    path("plons/<int:dip_id>", dip_edit.update_dip, name="dip_update"),
    path("plons/<int:dip_id>/ongedaan", dip_edit.undo_dip, name="dip_undo"),
    path("stoppen", challenge.stop, name="challenge_stop"),
    # Dated club challenges: taking part, and a dip from the dashboard for a member without a card.
    path("club/meedoen", club.join, name="club_challenge_join"),
    path("club/stoppen", club.leave, name="club_challenge_leave"),
    path("club/plons", club.register_dip, name="club_dip_register"),
    path("club/plons/ongedaan", club.undo_dip, name="club_dip_undo"),
]

urlpatterns = [
    path("dashboard", dashboard.dashboard, name="dashboard"),
    path("challenge", challenge.challenge, name="challenge"),
    path("challenge/", include(challenge_pages)),
    path("foto/<int:dip_id>", photos.photo, name="dip_photo"),
    path("foto/<int:dip_id>/klein", photos.thumbnail, name="dip_thumbnail"),
    path("badge-art/<str:name>", badge_art.badge_art, name="badge_art"),
]
