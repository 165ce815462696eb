from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate


def _record_first_start(sender, using="default", **kwargs):
    from .first_start import first_start_record
    from .models import FirstStart

    # Not there when migrating back past the migration that makes it.
    if FirstStart._meta.db_table in connections[using].introspection.table_names():
        first_start_record(using=using)


class OperationsConfig(AppConfig):
    name = "apps.operations"
    verbose_name = "Beheer van de installatie"

    def ready(self):
        # After every migrate (and flush): the first one is the installation's first start (first_start.py).
        post_migrate.connect(_record_first_start, sender=self, dispatch_uid="operations_first_start")
