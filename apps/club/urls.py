from django.urls import path

from . import views

urlpatterns = [
    path("club", views.club, name="club"),
    path("club/delen", views.sharing, name="club_sharing"),
    path("club/brrr", views.brrr, name="club_brrr"),
    path("club/verbergen", views.hide, name="club_hide"),
    path("club/foto/<int:dip_id>", views.photo, name="club_photo"),
    path("club/foto/<int:dip_id>/klein", views.thumbnail, name="club_thumbnail"),
    path("club/badge/<int:award_id>/deel.png", views.badge_share, name="club_badge_share"),
]
