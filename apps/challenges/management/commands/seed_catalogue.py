from django.core.management.base import BaseCommand
from django.db import transaction

from apps.challenges.catalogue import apply_catalogue
from apps.challenges.models import Badge, Challenge
from apps.core.page_cache import CATALOGUE, pages_changed


class Command(BaseCommand):
    help = "Maakt de standaard challenges en badges aan of werkt ze bij (veilig om vaker te draaien)."

    def handle(self, *args, **options):
        with transaction.atomic():
            count = apply_catalogue(Challenge, Badge)
            pages_changed(CATALOGUE)
        self.stdout.write(self.style.SUCCESS(f"Catalogus bijgewerkt: {count} challenges."))
