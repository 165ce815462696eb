from django.urls import path

from .views import api, exports, page, physical

urlpatterns = [
    path("admin", page.admin_page, name="adminpanel"),
    path("admin/nieuwsbrief.csv", page.newsletter_export, name="adminpanel_newsletter_export"),
    path("admin/nieuwsbrief.xlsx", exports.newsletter_xlsx, name="adminpanel_newsletter_xlsx"),
    path("admin/gebruikers.xlsx", exports.users_xlsx, name="adminpanel_users_xlsx"),
    path("admin/fysieke-badges/te-versturen.xlsx", exports.to_send_xlsx, name="adminpanel_to_send_xlsx"),
    path("admin/fysieke-badges/te-versturen.csv", exports.to_send_csv, name="adminpanel_to_send_csv"),
    path("admin/fysieke-badges/markeren", physical.physical_mark, name="adminpanel_physical_mark"),
    path("admin/api/fotos", api.photos, name="adminpanel_photos"),
    path("admin/api/uitnodigingen", api.invitations, name="adminpanel_invitations"),
    path("admin/api/uitnodigingen/nieuw", api.invitation_create_view, name="adminpanel_invitation_create"),
    path("admin/api/uitnodigingen/bulk", api.invitation_bulk, name="adminpanel_invitation_bulk"),
    path(
        "admin/api/uitnodigingen/<int:invitation_id>/verwijderen",
        api.invitation_delete_view,
        name="adminpanel_invitation_delete",
    ),
    path(
        "admin/api/uitnodigingen/<int:invitation_id>/versturen",
        api.invitation_resend_view,
        name="adminpanel_invitation_resend",
    ),
    path("admin/api/gebruikers", api.users, name="adminpanel_users"),
    path("admin/api/gebruikers/<int:user_id>/verwijderen", api.user_delete_view, name="adminpanel_user_delete"),
]
