from apps.accounts.management.admin_role_command import AdminRoleCommand
from apps.accounts.services import admin_revoke


class Command(AdminRoleCommand):
    help = "Neem de admin-rol van een account af."
    change = staticmethod(admin_revoke)
    changed_text = "{email} is geen admin meer."
    unchanged_text = "{email} was geen admin."
