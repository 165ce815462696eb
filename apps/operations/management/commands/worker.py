from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from apps.operations.heartbeat import Beating
from apps.operations.models import Heartbeat


class Command(DbWorkerCommand):
    help = (
        "De taakworker: django-tasks' db_worker (verstuurt de mails, maakt de exports) met een hartslag "
        "voor de Systeemstatus en `manage.py alive worker`. Neemt dezelfde opties als db_worker."
    )

    def handle(self, *args, **options):
        # db_worker leaves through sys.exit() on SIGTERM when idle: the block still ends, and says so.
        with Beating(Heartbeat.Kind.WORKER):
            super().handle(*args, **options)
