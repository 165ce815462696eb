"""`python manage.py seed_load_data`: see apps/demo/load_data/ for what it writes."""

import time

from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from apps.demo.load_data import (
    BENCH_MEMBER_EMAIL,
    LOAD_ADMIN_EMAIL,
    LOAD_ADMIN_TOTP_SECRET,
    LOAD_DOMAIN,
    LOAD_PASSWORD,
    LoadSeeder,
    load_admin_second_factor,
    load_counts,
    load_data_remove,
    refresh_statistics,
)


class Command(BaseCommand):
    help = "Belastingtest-gegevens voor `make bench` (idempotent; --reset schrijft alles opnieuw)."

    def add_arguments(self, parser):
        parser.add_argument("--members", type=int, default=2000, help="number of members (default 2000)")
        parser.add_argument(
            "--dips-per-member", type=int, default=50, help="average dips per member (default 50: 100,000 in all)"
        )
        parser.add_argument("--photos", type=int, default=2000, help="dips with a photo (default 2000)")
        parser.add_argument("--invitations", type=int, default=1000, help="invitations (default 1000)")
        parser.add_argument("--events", type=int, default=50, help="events (default 50)")
        parser.add_argument("--seed", type=int, default=7, help="random seed: the same seed gives the same club")
        parser.add_argument("--batch-size", type=int, default=5000, help="rows per INSERT")
        parser.add_argument("--reset", action="store_true", help="remove the load data and write it again")

    def handle(self, *args, **options):
        for name in ("members", "dips_per_member", "photos", "invitations", "events"):
            if options[name] < 0:
                raise CommandError(f"--{name.replace('_', '-')} must not be negative")
        if options["members"] < 1:
            raise CommandError("--members must be at least 1")
        started = time.monotonic()
        expected = {
            "members": options["members"],
            "dips": options["members"] * options["dips_per_member"],
            "photos": min(options["photos"], options["members"] * options["dips_per_member"]),
            "invitations": options["invitations"],
            "events": options["events"],
        }
        present = load_counts()
        if not options["reset"] and present == expected:
            load_admin_second_factor()
            self.stdout.write(self.style.SUCCESS("Belastingtest-gegevens zijn er al; niets veranderd."))
            self._summary(present, time.monotonic() - started)
            return
        if any(present.values()):
            removed = load_data_remove()
            self.stdout.write(f"Oude belastingtest-gegevens verwijderd ({removed}).")

        seeder = LoadSeeder(options, log=self.stdout.write)
        try:
            with transaction.atomic():
                seeder.run()
        except BaseException:
            seeder.remove_written_files()
            raise
        refresh_statistics()
        # Written in bulk, past the services that move the pages' versions: no cached page may outlive it.
        cache.clear()
        self._summary(load_counts(), time.monotonic() - started)

    def _summary(self, counts: dict, seconds: float):
        self.stdout.write(
            f"  {counts['members']} leden, {counts['dips']} plonsen, {counts['photos']} foto's, "
            f"{counts['invitations']} uitnodigingen, {counts['events']} events ({seconds:.1f} s)"
        )
        self.stdout.write(f"  Leden:  lid0001..lid{counts['members']:04d}@{LOAD_DOMAIN} / {LOAD_PASSWORD}")
        self.stdout.write(
            f"  Admin:  {LOAD_ADMIN_EMAIL} / {LOAD_PASSWORD} (authenticator-app: {LOAD_ADMIN_TOTP_SECRET})"
        )
        self.stdout.write(f"  Bench-lid (veel plonsen): {BENCH_MEMBER_EMAIL}")
