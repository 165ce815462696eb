"""One club message to 2,000 subscribed members through a Web Push receiver on loopback, with one worker.

The receiver (tests/support/push_receiver.py) runs in this process and does what a push service and a browser
do: it checks each request's VAPID signature and decrypts its aes128gcm payload. The worker is the real
`manage.py db_worker`, one process, as production runs it. Measured: from the admin's "Versturen" (the service
call that saves the message and queues its fan-out) to the last push received; and per push.
Goal (issue 26): the last one delivered within 60 s.

    .venv/bin/python bench/push.py                    # 2,000 members, database koud_bench_push
    .venv/bin/python bench/push.py --members 200 --out FILE.json

Uses $BENCH_PUSH_DATABASE_URL (default postgres://root@127.0.0.1:5432/koud_bench_push), emptied of members first.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOAL_SECONDS = 60


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

        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.1", "--no-startup-delay"],
            cwd=ROOT,
            env={**os.environ, **env},
        )
        try:
            time.sleep(2)  # the worker is up and polling before the clock starts
            started = time.monotonic()
            club_message_send(author=None, title="Bench", body="Eén bericht aan de hele club.")
            delivered = receiver.wait_for(args.members, timeout=args.timeout)
            elapsed = (receiver.received[-1].at if receiver.received else time.monotonic()) - started
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        count = len(receiver.received)
        first = receiver.received[0].at - started if receiver.received else None
        result = {
            "members": args.members,
            "delivered": count,
            "rejected": len(receiver.rejected),
            "seconds_to_last": round(elapsed, 2),
            "seconds_to_first": round(first, 2) if first is not None else None,
            "ms_per_push": round(elapsed * 1000 / max(count, 1), 2),
            "sent_notices": Notice.objects.filter(status=Notice.Status.SENT).count(),
            "goal_seconds": GOAL_SECONDS,
            "workers": 1,
            "loadavg": open("/proc/loadavg").read().split()[:3],
        }
    finally:
        receiver.stop()
    print(
        f"   {count}/{args.members} ontvangen (geweigerd: {result['rejected']}), "
        f"eerste na {result['seconds_to_first']} s, "
        f"laatste na {result['seconds_to_last']} s, {result['ms_per_push']} ms per push "
        f"(doel: binnen {GOAL_SECONDS} s) {'OK' if delivered and elapsed < GOAL_SECONDS else 'NIET GEHAALD'}"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(result))
    return 0 if delivered and result["rejected"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
