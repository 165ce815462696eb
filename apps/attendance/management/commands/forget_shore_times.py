"""Scheduled (daily, just after midnight): `python manage.py forget_shore_times`. The times in and out of the
water of "Aan de waterkant" are kept on the day of the swim only; after it only attendance remains. Idempotent."""

from django.core.management.base import BaseCommand

from apps.attendance.shore import shore_forget


class Command(BaseCommand):
    help = "Verwijdert de tijden van 'Aan de waterkant' van zwempartijen van voor vandaag."

    def handle(self, *args, **options):
        removed = shore_forget()
        self.stdout.write(f"{removed} lijst(en) aan de waterkant verwijderd.")
