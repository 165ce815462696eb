"""Cron: `python manage.py delete_old_exports` (hourly or beside send_scheduled_mail). Idempotent."""

from django.core.management.base import BaseCommand

from apps.logbook.services import exports_delete_old


class Command(BaseCommand):
    help = "Verwijder exports van gegevens die ouder zijn dan EXPORT_KEEP_HOURS (en losse bestanden)."

    def handle(self, *args, **options):
        removed = exports_delete_old()
        self.stdout.write(f"{removed} oude export(s) verwijderd.")
