"""Cron: `python manage.py send_scheduled_mail` every 15 minutes. Idempotent: a mail is never sent twice."""

import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.challenges.photo_cleanup import photo_orphans_delete
from apps.reminders.scheduled import scheduled_mails_send


class Command(BaseCommand):
    help = (
        "Laat verlopen wachtlijstaanbiedingen en onbevestigde gastaanmeldingen vervallen (de plek gaat naar de "
        "volgende), zet de herinneringen "
        "(event morgen, 14 dagen geen plons), mislukte e-mails en werk van een "
        "gestopte worker (opnieuw) in de wachtrij; ruimt fotobestanden zonder plons op."
    )

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
        run = scheduled_mails_send(now=moment)
        self.stdout.write(
            f"{run.offers_expired} verlopen wachtlijstaanbod(en), "
            f"{run.guest_holds_expired} onbevestigde gastaanmelding(en) vervallen, "
            f"{run.reminders} herinnering(en) voor events, {run.nudges} plonsherinnering(en), "
            f"{run.retried} mislukte e-mail(s) opnieuw in de wachtrij, "
            f"{run.recovered} blijven hangende e-mail(s) en taken opnieuw in de wachtrij."
        )
        # On the real clock, never --now: a file younger than an hour may belong to an upload still running.
        removed = photo_orphans_delete()
        self.stdout.write(f"{removed} fotobestand(en) zonder plons verwijderd.")
