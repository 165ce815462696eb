from django.core.management.base import BaseCommand

from apps.invitations.services import invitations_cleanup_expired


class Command(BaseCommand):
    help = "Verwijder verlopen uitnodigingen die nooit gebruikt zijn."

    def handle(self, *args, **options):
        deleted = invitations_cleanup_expired()
        word = "uitnodiging" if deleted == 1 else "uitnodigingen"
        self.stdout.write(self.style.SUCCESS(f"{deleted} verlopen {word} verwijderd."))
