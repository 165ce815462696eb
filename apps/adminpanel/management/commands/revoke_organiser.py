from apps.accounts.management.admin_role_command import AdminRoleCommand
from apps.accounts.services import organiser_revoke


class Command(AdminRoleCommand):
    help = "Neem de rol Organisator af van een account."
    change = staticmethod(organiser_revoke)
    changed_text = "{email} is geen organisator meer."
    unchanged_text = "{email} was geen organisator."
