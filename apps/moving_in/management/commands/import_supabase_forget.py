"""python manage.py import_supabase_forget --yes: delete the import's bookkeeping (the old app's ids)."""

from django.core.management.base import BaseCommand, CommandError

from apps.moving_in.models import ImportedObject
from apps.moving_in.services import bookkeeping_forget


class Command(BaseCommand):
    help = "Vergeet de oude id's van de import, als de club tevreden is. Daarna herkent een nieuwe import niets meer."

    def add_arguments(self, parser):
        parser.add_argument("--yes", action="store_true", help="echt verwijderen")

    def handle(self, *args, **options):
        waiting = ImportedObject.objects.filter(photo_status=ImportedObject.PhotoStatus.WAITING).count()
        if not options["yes"]:
            raise CommandError(
                f"Dit verwijdert {ImportedObject.objects.count()} regels boekhouding van de import"
                + (f", en {waiting} foto's wachten nog op de fotoronde" if waiting else "")
                + ". Herhaal met --yes."
            )
        deleted = bookkeeping_forget()
        self.stdout.write(f"{deleted} regels boekhouding van de import verwijderd.")
