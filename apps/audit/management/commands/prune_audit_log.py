"""Scheduler (daily): `python manage.py prune_audit_log`. Idempotent."""

from django.core.management.base import BaseCommand
from django.utils.dateparse import parse_datetime

from apps.audit.services import audit_prune


class Command(BaseCommand):
    help = "Verwijder regels uit het logboek van beheer die ouder zijn dan AUDIT_KEEP_DAYS."

    def add_arguments(self, parser):
        parser.add_argument("--now", help="ISO-moment om vanaf te rekenen (tests)")

    def handle(self, *args, now=None, **options):
        moment = parse_datetime(now) if now else None
        removed = audit_prune(now=moment)
        self.stdout.write(f"{removed} oude logboekregel(s) verwijderd.")
