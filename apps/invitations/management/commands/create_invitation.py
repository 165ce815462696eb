from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from apps.invitations.links import invitation_url
from apps.invitations.services import invitation_create

MAX_COUNT = 500


class Command(BaseCommand):
    help = "Maak uitnodigingen aan en toon elke code met zijn volledige link."

    def add_arguments(self, parser):
        parser.add_argument("--email", default="", help="alleen dit e-mailadres mag de uitnodiging gebruiken")
        parser.add_argument("--count", default="1", help=f"aantal uitnodigingen (1 tot {MAX_COUNT}, standaard 1)")

    def handle(self, *args, email, count, **options):
        try:
            count = int(count)
        except ValueError:
            raise CommandError(f"--count moet een heel getal zijn, niet {count!r}") from None
        if not 1 <= count <= MAX_COUNT:
            raise CommandError(f"--count moet tussen 1 en {MAX_COUNT} liggen, niet {count}")
        email = email.strip()
        if email and count > 1:
            raise CommandError(
                "Een uitnodiging voor een e-mailadres kan maar één keer gebruikt worden: laat --count weg"
            )

        for _ in range(count):
            try:
                invitation = invitation_create(email=email or None)
            except ValidationError as exc:
                raise CommandError(f"{email!r}: {' '.join(exc.messages)}") from None
            self.stdout.write(f"{invitation.code}  {invitation_url(invitation.code)}")
