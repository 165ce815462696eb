import signal
import threading

from django.core.management.base import BaseCommand

from apps.operations.heartbeat import Beating
from apps.operations.models import Heartbeat
from apps.operations.scheduler import TICK_SECONDS, scheduler_run


class Command(BaseCommand):
    help = (
        "De planner: draait elke geplande taak (apps/operations/jobs.py) op haar tijd, blijft draaien. "
        "Stopt netjes op SIGTERM, na de taak die loopt."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Draai wat nu aan de beurt is en stop.")
        parser.add_argument("--tick", type=float, default=TICK_SECONDS, help="Seconden tussen twee rondes.")

    def handle(self, *args, once=False, tick=TICK_SECONDS, **options):
        stop = threading.Event()

        def request_stop(signum, frame):
            stop.set()

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        with Beating(Heartbeat.Kind.SCHEDULER):
            self.stdout.write("De planner draait.")
            scheduler_run(stop=stop, tick=tick, once=once)
        self.stdout.write("De planner is gestopt.")
