"""`python manage.py restore ARCHIVE [--force]`: a backup back onto an empty database and media folder. Stop
the site (web, worker, scheduler) first. See apps/operations/restore.py and docs/operations.md "Backups and restore"."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.operations.backup import BackupError
from apps.operations.restore import backup_restore


class Command(BaseCommand):
    help = "Zet een back-up van `manage.py backup` terug op een lege database en mediamap."

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path, help="het archief (een pad, of een naam in BACKUP_DIR)")
        parser.add_argument(
            "--force", action="store_true", help="ook als de database of mediamap niet leeg is (overschrijft die)"
        )

    def handle(self, *args, **options):
        try:
            result = backup_restore(archive=options["archive"], force=options["force"], say=self.stdout.write)
        except BackupError as error:
            raise CommandError(error.message) from error
        self.stdout.write(f"{result.media_files} bestanden teruggezet.")
        if not result.manifest["media"]["included"]:
            bucket = result.manifest["media"].get("bucket", "")
            self.stdout.write(
                f"De foto's staan niet in deze back-up maar in de S3-bucket {bucket}: zet die apart terug."
            )
        if result.migrated:
            self.stdout.write(f"Bijgewerkt naar deze versie: {len(result.migrated)} migratie(s) uitgevoerd.")
        self.stdout.write(
            f"Cache geleegd ({', '.join(result.caches_cleared)}). Exports van leden vragen ze opnieuw aan."
        )
        self.stdout.write(self.style.SUCCESS("Herstel klaar. Start de site weer."))
