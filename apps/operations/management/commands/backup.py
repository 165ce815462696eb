"""`python manage.py backup`: one archive in BACKUP_DIR, then the newest BACKUP_KEEP kept (the scheduler runs
it daily). See apps/operations/backup.py for what is inside and docs/operations.md "Backups and restore"."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.operations.backup import BackupError, backup_create


class Command(BaseCommand):
    help = "Maak een back-up (database, foto's, manifest) in BACKUP_DIR en bewaar de laatste BACKUP_KEEP."

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, help="een andere map dan BACKUP_DIR")
        parser.add_argument("--keep", type=int, help="bewaar zoveel back-ups (standaard BACKUP_KEEP)")

    def handle(self, *args, **options):
        try:
            result = backup_create(folder=options["dir"], keep=options["keep"])
        except BackupError as error:
            raise CommandError(error.message) from error
        counts = result.counts
        self.stdout.write(
            f"Back-up geschreven: {result.path} ({result.size / 1_000_000:.1f} MB; {counts['members']} leden, "
            f"{counts['dips']} plonsen, {counts['photos']} foto's) in {result.seconds:.1f} s."
        )
        for path in result.removed:
            self.stdout.write(f"Oude back-up verwijderd: {path.name}")
