from apps.accounts.management.admin_role_command import AdminRoleCommand
from apps.adminpanel.services import organiser_appoint


class Command(AdminRoleCommand):
    help = "Geef een bestaand account de rol Organisator (events, aanwezigheid en clubberichten)."
    change = staticmethod(organiser_appoint)
    changed_text = "{email} is nu organisator."
    unchanged_text = "{email} was al organisator."
