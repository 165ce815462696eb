from apps.accounts.management.admin_role_command import AdminRoleCommand
from apps.accounts.services import organiser_grant


class Command(AdminRoleCommand):
    help = "Geef een bestaand account de rol Organisator (events, aanwezigheid en clubberichten)."
    change = staticmethod(organiser_grant)
    changed_text = "{email} is nu organisator."
    unchanged_text = "{email} was al organisator."
