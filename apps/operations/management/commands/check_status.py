from django.core.management.base import BaseCommand

from apps.operations.alerts import status_alerts_update
from apps.operations.status import system_status


class Command(BaseCommand):
    help = (
        "De Systeemstatus: drukt elke controle af, onthoudt wat rood is en mailt de admins één keer "
        "wanneer iets rood wordt. De planner draait dit elke 5 minuten."
    )

    def add_arguments(self, parser):
        parser.add_argument("--quiet", action="store_true", help="Alleen wat rood is.")

    def handle(self, *args, quiet=False, **options):
        status = system_status(fresh=True)  # what the /admin card shows for the next minute
        for result in status.results:
            if quiet and not result.red:
                continue
            mark = "ROOD" if result.red else "ok  "
            self.stdout.write(f"{mark} {result.label}: {result.red or result.value}")
        mailed = status_alerts_update(status=status)
        if mailed:
            self.stdout.write(f"{mailed} admin(s) gemaild.")
