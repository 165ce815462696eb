from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.accounts.removal import AdminActionError
from apps.accounts.selectors import user_get_by_email
from apps.audit.services import AuditMeta


class AdminRoleCommand(BaseCommand):
    """grant_admin, revoke_admin, grant_organiser and revoke_organiser: find the account by e-mail, change the
    role (recorded in the audit log as done by manage.py), say what happened."""

    change: Callable[..., bool]  # the service: True when it changed something
    changed_text = ""  # "{email} ..."
    unchanged_text = ""

    def add_arguments(self, parser):
        parser.add_argument("email")

    def handle(self, *args, email, **options):
        user: User | None = user_get_by_email(email=email)
        if user is None:
            raise CommandError(f"Geen account met e-mailadres {email!r}")
        try:
            changed = self.change(user=user, meta=AuditMeta.command(self.__module__.rsplit(".", 1)[-1]))
        except AdminActionError as error:
            raise CommandError(str(error)) from None
        if changed:
            self.stdout.write(self.style.SUCCESS(self.changed_text.format(email=user.email)))
        else:
            self.stdout.write(self.unchanged_text.format(email=user.email))
