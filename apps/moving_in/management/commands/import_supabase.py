"""python manage.py import_supabase --database-url URL [--photos DIR | --photos-s3 ENDPOINT --bucket dip_photos]
[--dry-run] [--on-conflict refuse|skip|merge] [--merge-duplicates] [--report FILE] [--only-photos]

The runbook: docs/operations.md, "Moving in from the original app"."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import DomainError
from apps.moving_in.photos import FolderPhotos, S3Photos, photos_check, photos_import
from apps.moving_in.report import Report
from apps.moving_in.services import ON_CONFLICT, import_data
from apps.moving_in.source import source_read


class Command(BaseCommand):
    help = "Importeer een club uit de oude app (Supabase): leden, kaarten, plonsen, badges, events en foto's."

    def add_arguments(self, parser):
        parser.add_argument("--database-url", help="PostgreSQL met de schema's auth, storage en public van de oude app")
        photos = parser.add_mutually_exclusive_group()
        photos.add_argument("--photos", metavar="DIR", help="de bucket dip_photos als map")
        photos.add_argument("--photos-s3", metavar="ENDPOINT", help="het S3-adres van de bucket")
        parser.add_argument("--bucket", default="dip_photos", help="de bucket bij --photos-s3 (standaard dip_photos)")
        parser.add_argument("--dry-run", action="store_true", help="niets schrijven, alleen het rapport")
        parser.add_argument("--on-conflict", choices=ON_CONFLICT, default="refuse")
        parser.add_argument(
            "--merge-duplicates",
            action="store_true",
            help="een tweede account met hetzelfde e-mailadres (andere hoofdletters) samenvoegen in het oudste",
        )
        parser.add_argument("--report", metavar="FILE", help="het rapport ook als JSON in dit bestand")
        parser.add_argument(
            "--only-photos", action="store_true", help="alleen de foto's die nog wachten (hervatbaar, na de import)"
        )
        parser.add_argument("--photo-limit", type=int, help="hoogstens zoveel foto's in deze ronde")
        parser.add_argument(
            "--photo-workers",
            type=int,
            default=min(os.cpu_count() or 1, 4),
            help="processen die tegelijk foto's verwerken (standaard het aantal cores, hoogstens 4)",
        )

    def handle(self, *args, **options):
        source = self._photo_source(options)
        try:
            if options["only_photos"]:
                if source is None:
                    raise CommandError("--only-photos heeft --photos of --photos-s3 nodig.")
                report = photos_import(source=source, limit=options["photo_limit"], workers=options["photo_workers"])
            else:
                if not options["database_url"]:
                    raise CommandError("--database-url is verplicht (de database van de oude app).")
                data = source_read(options["database_url"])
                report = import_data(
                    data=data,
                    on_conflict=options["on_conflict"],
                    merge_duplicates=options["merge_duplicates"],
                    dry_run=options["dry_run"],
                )
                if source is not None and options["dry_run"]:
                    # The photos the real run's photo pass will look for: those of the dips that come in.
                    photos_check(source=source, report=report)
                elif source is not None:
                    del data  # the photo pass streams: the old database's rows are not needed any more
                    _merge_photos(
                        report,
                        photos_import(source=source, limit=options["photo_limit"], workers=options["photo_workers"]),
                    )
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(report.as_text())
        if options["report"]:
            Path(options["report"]).write_text(report.as_json(), encoding="utf-8")
            self.stdout.write(f"\nRapport als JSON: {options['report']}")

    def _photo_source(self, options):
        if options["photos"]:
            if not Path(options["photos"]).is_dir():
                raise CommandError(f"De map {options['photos']} bestaat niet.")
            return FolderPhotos(options["photos"])
        if options["photos_s3"]:
            return S3Photos(options["photos_s3"], options["bucket"])
        return None


def _merge_photos(report: Report, photos: Report) -> None:
    """The photo pass's own counts replace the data pass's 'found' (it counted what waits)."""
    report.entities["photos"] = photos.entities["photos"]
    report.anomalies += photos.anomalies
