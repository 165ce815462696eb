"""One club message to 2,000 subscribed members through a Web Push receiver on loopback, with one worker.

The receiver (tests/support/push_receiver.py) runs in this process and does what a push service and a browser
do: it checks each request's VAPID signature and decrypts its aes128gcm payload, and answers after 100 ms (a
real push service's answer time; --delay-ms). The worker is the real `manage.py db_worker`, one process, as
production runs it. One more member has a poisoned device (a key that is no curve point, stored around the
subscribe checks): that one push fails, and that member is mailed. Halfway (--kill-at, a share of the pushes
received) the worker is killed with SIGKILL and a new one started, as Docker restarts a container. Measured:
from the admin's "Versturen" (the service call that saves the message and queues its fan-out) to the last push
received; how many members got it once, twice or not at all. Goal (issues 26 and 36): every member exactly
once (a push in flight at the kill may go twice), the last within 60 s.

    .venv/bin/python bench/push.py                    # 2,000 members, database koud_bench_push
    .venv/bin/python bench/push.py --members 200 --delay-ms 100 --kill-at 0.5 --out FILE.json

Uses $BENCH_PUSH_DATABASE_URL (default postgres://root@127.0.0.1:5432/koud_bench_push), emptied of members first.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOAL_SECONDS = 60
# A p256dh of the right length and prefix that is not a point on P-256.
POISON = "BAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"


def _ensure_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    parts = urlparse(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(url.replace(parts.path, "/postgres", 1), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--delay-ms", type=float, default=100, help="the receiver's answer time per push")
    parser.add_argument("--kill-at", type=float, default=0.5, help="kill the worker at this share (0: never)")
    parser.add_argument("--out", help="write the result as JSON here")
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_PUSH_DATABASE_URL", "postgres://root@127.0.0.1:5432/koud_bench_push")
    _ensure_database(database_url)

    from tests.support.push_receiver import PushReceiver, vapid_key_pair

    public, private = vapid_key_pair()
    env = {
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DJANGO_DEBUG": "false",
        "VAPID_PUBLIC_KEY": public,
        "VAPID_PRIVATE_KEY": private,
        "WEBPUSH_ALLOW_INSECURE_LOOPBACK": "true",
        "WEBPUSH_CONCURRENCY": os.environ.get("WEBPUSH_CONCURRENCY", "8"),
        # Every notice goes now: the measurement must not wait for the morning.
        "QUIET_HOURS_START": "0",
        "QUIET_HOURS_END": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    # No Redis for this run: the page cache is not what is measured.
    os.environ.pop("REDIS_URL", None)

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django_tasks_db.models import DBTaskResult

    from apps.notifications.models import ClubMessage, Notice, PushSubscription
    from apps.notifications.services import club_message_send

    call_command("migrate", "--noinput", verbosity=0)
    User = get_user_model()
    User.objects.all().delete()
    ClubMessage.objects.all().delete()
    DBTaskResult.objects.all().delete()

    receiver = PushReceiver(vapid_public_key=public).start()
    try:
        print(f"== {args.members} leden met een abonnement op de ontvanger ({receiver.origin})")
        users = User.objects.bulk_create(
            [User(email=f"lid{n:05d}@push.koudwater.test", full_name=f"Lid {n}") for n in range(args.members)],
            batch_size=1000,
        )
        subscriptions = []
        for user in users:
            browser = receiver.subscribe().as_json()
            subscriptions.append(
                PushSubscription(
                    user=user,
                    endpoint=browser["endpoint"],
                    p256dh=browser["keys"]["p256dh"],
                    auth=browser["keys"]["auth"],
                    device_label="Bench",
                )
            )
        PushSubscription.objects.bulk_create(subscriptions, batch_size=1000)

        poisoned_user = User.objects.create(email="vergiftigd@push.koudwater.test", full_name="Vergiftigd")
        PushSubscription.objects.create(
            user=poisoned_user,
            endpoint=receiver.subscribe().endpoint,
            p256dh=POISON,
            auth=subscriptions[0].auth,
            device_label="Bench",
        )
        receiver.delay = args.delay_ms / 1000

        def start_worker() -> subprocess.Popen:
            return subprocess.Popen(
                [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay"],
                cwd=ROOT,
                env={**os.environ, **env},
            )

        worker = start_worker()
        killed_at = None
        in_flight_at_kill: set[str] = set()
        try:
            time.sleep(2)  # the worker is up and polling before the clock starts
            started = time.monotonic()
            club_message_send(author=None, title="Bench", body="Eén bericht aan de hele club.")
            if args.kill_at:
                receiver.wait_for(int(args.members * args.kill_at), timeout=args.timeout)
                worker.send_signal(signal.SIGKILL)
                worker.wait(timeout=30)
                killed_at = time.monotonic() - started
                # What the dead worker sent has arrived a moment later. In doubt: what arrived but was never
                # recorded as sent (in flight, or answered but not yet written): only those may go twice.
                time.sleep(1 + receiver.delay)
                recorded = set(
                    PushSubscription.objects.filter(user__notices__status=Notice.Status.SENT).values_list(
                        "endpoint", flat=True
                    )
                )
                in_flight_at_kill = {delivery.endpoint for delivery in list(receiver.received)} - recorded
                worker = start_worker()  # as Docker restarts it
            delivered = _wait_for_everyone(receiver, args.members, timeout=args.timeout)
            firsts: dict[str, float] = {}
            for delivery in list(receiver.received):
                firsts.setdefault(delivery.endpoint, delivery.at)
            elapsed = (max(firsts.values()) if firsts else time.monotonic()) - started
            time.sleep(2)  # anything sent twice after the last first one arrives meanwhile
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        per_endpoint = Counter(delivery.endpoint for delivery in receiver.received)
        count = len(per_endpoint)
        twice = sum(1 for n in per_endpoint.values() if n > 1)
        twice_not_in_flight = sum(1 for e, n in per_endpoint.items() if n > 1 and e not in in_flight_at_kill)
        first = min(d.at for d in receiver.received) - started if receiver.received else None
        poisoned_status = Notice.objects.filter(user=poisoned_user).values_list("status", flat=True).first()
        result = {
            "members": args.members,
            "delivered": count,
            "twice": twice,
            "twice_not_in_flight": twice_not_in_flight,
            "in_flight_at_kill": len(in_flight_at_kill),
            "poisoned_member": poisoned_status,
            "rejected": len(receiver.rejected),
            "rejected_reasons": sorted({reason for _, reason in receiver.rejected}),
            "receiver_ms": args.delay_ms,
            "killed_after": round(killed_at, 2) if killed_at is not None else None,
            "seconds_to_last": round(elapsed, 2),
            "seconds_to_first": round(first, 2) if first is not None else None,
            "ms_per_push": round(elapsed * 1000 / max(count, 1), 2),
            "sent_notices": Notice.objects.filter(status=Notice.Status.SENT).count(),
            "goal_seconds": GOAL_SECONDS,
            "workers": 1,
            "concurrency": int(env["WEBPUSH_CONCURRENCY"]),
            "loadavg": open("/proc/loadavg").read().split()[:3],
        }
    finally:
        receiver.stop()
    ok = delivered and elapsed < GOAL_SECONDS and twice_not_in_flight == 0 and poisoned_status == "mailed"
    print(
        f"   {count}/{args.members} ontvangen (geweigerd: {result['rejected']}, twee keer: {twice}, "
        f"waarvan niet in twijfel bij de kill: {twice_not_in_flight}), ontvanger {args.delay_ms:g} ms per push, "
        f"worker gekild na {result['killed_after']} s, vergiftigd apparaat: {poisoned_status}, "
        f"eerste na {result['seconds_to_first']} s, laatste na {result['seconds_to_last']} s "
        f"(doel: binnen {GOAL_SECONDS} s) {'OK' if ok else 'NIET GEHAALD'}"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(result))
    return 0 if ok else 1


def _wait_for_everyone(receiver, members: int, *, timeout: float) -> bool:
    """Every member's endpoint reached at least once (a push sent twice does not count twice)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len({delivery.endpoint for delivery in list(receiver.received)}) >= members:
            return True
        time.sleep(0.05)
    return False


if __name__ == "__main__":
    sys.exit(main())
