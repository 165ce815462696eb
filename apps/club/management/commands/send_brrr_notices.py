from django.core.management.base import BaseCommand

from apps.club.services import brrr_notices_send, club_orphans_remove


class Command(BaseCommand):
    help = (
        "Vertel leden (hoogstens één keer per dag) dat clubgenoten Brrr! gaven. "
        "Voor cron; twee keer draaien kan geen kwaad."
    )

    def handle(self, *args, **options):
        removed = club_orphans_remove()
        sent = brrr_notices_send()
        self.stdout.write(f"{sent} Brrr!-melding(en) verstuurd; {removed} Brrr!s bij verdwenen berichten opgeruimd.")
