"""Cron (daily): `python manage.py delete_old_guests`. Guests' data goes 30 days after their event, unless they
became members. Idempotent."""

import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.events.services import guests_delete_old


class Command(BaseCommand):
    help = "Verwijdert gasten 30 dagen na hun event, behalve wie inmiddels lid is."

    def add_arguments(self, parser):
        parser.add_argument("--now", help="Doe alsof het dit moment is (ISO 8601, bijv. 2026-12-01T10:00+01:00).")

    def handle(self, *args, now=None, **options):
        moment = timezone.now()
        if now:
            try:
                moment = datetime.datetime.fromisoformat(now)
            except ValueError as exc:
                raise CommandError(f"Ongeldig moment: {now!r}. Gebruik ISO 8601 (2026-12-01T10:00+01:00).") from exc
            if timezone.is_naive(moment):
                moment = timezone.make_aware(moment)
        removed = guests_delete_old(now=moment)
        self.stdout.write(f"{removed} gast(en) verwijderd.")
