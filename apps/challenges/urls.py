from django.urls import path

from .views import address, badge_art, challenge, dashboard, dip_edit, photos

urlpatterns = [
    path("dashboard", dashboard.dashboard, name="dashboard"),
    path("challenge", challenge.challenge, name="challenge"),
    path("challenge/start", dashboard.start, name="challenge_start"),
    path("challenge/plons", challenge.register_dip, name="dip_register"),
    path("challenge/plons/<int:dip_id>", dip_edit.update_dip, name="dip_update"),
    path("challenge/plons/<int:dip_id>/ongedaan", dip_edit.undo_dip, name="dip_undo"),
    path("challenge/stoppen", challenge.stop, name="challenge_stop"),
    path("foto/<int:dip_id>", photos.photo, name="dip_photo"),
    path("foto/<int:dip_id>/klein", photos.thumbnail, name="dip_thumbnail"),
    path("badge-art/<str:name>", badge_art.badge_art, name="badge_art"),
    path("account/postadres", address.postal_address, name="postal_address"),
]
