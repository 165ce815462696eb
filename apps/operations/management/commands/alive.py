import sys

from django.core.management.base import BaseCommand
from django.db import DatabaseError

from apps.operations.models import Heartbeat
from apps.operations.selectors import process_alive


class Command(BaseCommand):
    help = (
        "Gezondheidscontrole voor een container: 0 als een worker (of de planner) op deze machine een "
        "verse hartslag heeft, anders 1 met de reden."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=[kind.value for kind in Heartbeat.Kind])
        parser.add_argument("--any-host", action="store_true", help="Een verse hartslag op welke machine ook.")

    def handle(self, *args, kind, any_host=False, **options):
        try:
            alive, line = process_alive(kind=kind, any_host=any_host)
        except DatabaseError as error:
            alive, line = False, f"De database antwoordt niet: {error}".strip()
        if not alive:
            self.stderr.write(line)
            sys.exit(1)
        self.stdout.write(line)
