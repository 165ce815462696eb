from apps.accounts.management.admin_role_command import AdminRoleCommand
from apps.accounts.services import admin_grant


class Command(AdminRoleCommand):
    help = "Geef een bestaand account de admin-rol."
    change = staticmethod(admin_grant)
    changed_text = "{email} is nu admin."
    unchanged_text = "{email} was al admin."
