from django.urls import include, path

import apps.events.urls  # noqa: F401  (registers the event_id converter used below)

from .views import api, audit_log, club_challenges, club_message, events, exports, page, physical

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
    path("gebruikers/<int:user_id>/organisator", api.user_organiser_view, name="adminpanel_user_organiser"),
    path("uitnodigingen", api.invitations, name="adminpanel_invitations"),
    path("uitnodigingen/", include(invitation_api)),
]

# The organiser's events: list, new, and per event its page, edit, cancel, attendance and lists.
event_pages = [
    path("", events.events_list, name="adminpanel_events"),
    path("nieuw", events.event_new, name="adminpanel_event_new"),
    path("<event_id:event_id>", events.event_detail, name="adminpanel_event"),
    path("<event_id:event_id>/bewerken", events.event_edit, name="adminpanel_event_edit"),
    path("<event_id:event_id>/afgelasten", events.event_cancel_view, name="adminpanel_event_cancel"),
    path("<event_id:event_id>/aanwezig", events.event_attendance, name="adminpanel_event_attendance"),
    path("<event_id:event_id>/gasten-uitnodigen", events.event_guests_invite, name="adminpanel_event_guests_invite"),
    path("<event_id:event_id>/deelnemers.csv", events.event_lists_csv, name="adminpanel_event_lists_csv"),
    path("<event_id:event_id>/deelnemers.xlsx", events.event_lists_xlsx, name="adminpanel_event_lists_xlsx"),
]

admin_pages = [
    path("events/", include(event_pages)),
    path("nieuwsbrief.csv", page.newsletter_export, name="adminpanel_newsletter_export"),
    path("nieuwsbrief.xlsx", exports.newsletter_xlsx, name="adminpanel_newsletter_xlsx"),
    path("gebruikers.xlsx", exports.users_xlsx, name="adminpanel_users_xlsx"),
    path("fysieke-badges/", include(physical_badge_pages)),
    path("clubbericht/", club_message.club_message, name="adminpanel_club_message"),
    path("logboek/", audit_log.audit_log, name="adminpanel_audit_log"),
    path("clubchallenges", club_challenges.club_challenges, name="adminpanel_club_challenges"),
    path("clubchallenges/verwijderen", club_challenges.club_challenge_remove, name="adminpanel_club_challenge_delete"),
    path("api/", include(api_pages)),
]

urlpatterns = [
    path("admin", page.admin_page, name="adminpanel"),
    path("admin/", include(admin_pages)),
]
