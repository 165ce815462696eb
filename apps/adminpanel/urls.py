from django.urls import include, path

from .views import api, exports, page, physical

# Physical badges: the list of badges still to post, and marking them as posted.
physical_badge_pages = [
    path("", physical.physical_list, name="adminpanel_physical"),
    path("te-versturen.xlsx", exports.to_send_xlsx, name="adminpanel_to_send_xlsx"),
    path("te-versturen.csv", exports.to_send_csv, name="adminpanel_to_send_csv"),
    path("markeren", physical.physical_mark, name="adminpanel_physical_mark"),
]

invitation_api = [
    path("nieuw", api.invitation_create_view, name="adminpanel_invitation_create"),
    path("bulk", api.invitation_bulk, name="adminpanel_invitation_bulk"),
    path("<int:invitation_id>/verwijderen", api.invitation_delete_view, name="adminpanel_invitation_delete"),
    path("<int:invitation_id>/versturen", api.invitation_resend_view, name="adminpanel_invitation_resend"),
]

# The JSON the admin page's island reads and writes.
api_pages = [
    path("fotos", api.photos, name="adminpanel_photos"),
    path("gebruikers", api.users, name="adminpanel_users"),
    path("gebruikers/<int:user_id>/verwijderen", api.user_delete_view, name="adminpanel_user_delete"),
    path("uitnodigingen", api.invitations, name="adminpanel_invitations"),
    path("uitnodigingen/", include(invitation_api)),
]

admin_pages = [
    path("nieuwsbrief.csv", page.newsletter_export, name="adminpanel_newsletter_export"),
    path("nieuwsbrief.xlsx", exports.newsletter_xlsx, name="adminpanel_newsletter_xlsx"),
    path("gebruikers.xlsx", exports.users_xlsx, name="adminpanel_users_xlsx"),
    path("fysieke-badges/", include(physical_badge_pages)),
    path("api/", include(api_pages)),
]

urlpatterns = [
    path("admin", page.admin_page, name="adminpanel"),
    path("admin/", include(admin_pages)),
]
