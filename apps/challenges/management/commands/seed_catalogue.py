from django.core.management.base import BaseCommand

from apps.challenges.catalogue import apply_catalogue
from apps.challenges.models import Badge, Challenge
from apps.challenges.services.catalogue import catalogue_changed


class Command(BaseCommand):
    help = "Maakt de standaard challenges en badges aan of werkt ze bij (veilig om vaker te draaien)."

    def handle(self, *args, **options):
        count = apply_catalogue(Challenge, Badge)
        catalogue_changed()
        self.stdout.write(self.style.SUCCESS(f"Catalogus bijgewerkt: {count} challenges."))
