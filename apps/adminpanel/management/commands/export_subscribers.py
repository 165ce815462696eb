import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.adminpanel.csv_export import MESSAGE_NO_SUBSCRIBERS, subscribers_csv
from apps.adminpanel.selectors import subscriber_rows
from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record


class Command(BaseCommand):
    help = "Schrijft de nieuwsbrief-abonnees als CSV (hetzelfde bestand als het adminscherm)."

    def add_arguments(self, parser):
        parser.add_argument("--output", help="bestand om naar te schrijven (standaard: standaarduitvoer)")

    def handle(self, *args, output=None, **options):
        rows = list(subscriber_rows())
        if not rows:
            raise CommandError(MESSAGE_NO_SUBSCRIBERS)
        data = subscribers_csv(rows).encode("utf-8")
        audit_record(
            meta=AuditMeta.command("export_subscribers"),
            action=AuditAction.SUBSCRIBERS_EXPORTED,
            detail=f"{len(rows)} rijen",
        )
        if output:
            try:
                Path(output).write_bytes(data)
            except OSError as exc:
                raise CommandError(f"Kan {output} niet schrijven: {exc.strerror}") from exc
            self.stderr.write(self.style.SUCCESS(f"{len(rows)} abonnees geschreven naar {output}"))
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
