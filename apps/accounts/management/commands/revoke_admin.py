from django.core.management.base import BaseCommand, CommandError

from apps.accounts.selectors import user_get_by_email
from apps.accounts.services import admin_revoke


class Command(BaseCommand):
    help = "Neem de admin-rol van een account af."

    def add_arguments(self, parser):
        parser.add_argument("email")

    def handle(self, *args, email, **options):
        user = user_get_by_email(email=email)
        if user is None:
            raise CommandError(f"Geen account met e-mailadres {email!r}")
        if admin_revoke(user=user):
            self.stdout.write(self.style.SUCCESS(f"{user.email} is geen admin meer."))
        else:
            self.stdout.write(f"{user.email} was geen admin.")
