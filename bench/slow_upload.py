"""Slow phones behind the buffering proxy (issue 22 §4): five 5 MB photos at 0.75 Mbit/s (slow 4G,
55 s each) at once, through nginx with deploy/nginx/koud.conf, while another member opens /dashboard.

Goal: /dashboard is delayed by under 0.5 s, and every upload arrives (201). Without the proxy the
issue measured 33.5 s and lost the uploads to gunicorn's 30 s timeout.

Starts its own gunicorn (production settings, GUNICORN_WORKERS=5 and the 30 s timeout of production,
SSL redirect off: plain http on loopback) and nginx (tests/support/cluster.py) on free ports, in the
bench database of bench/run.sh (DATABASE_URL, DJANGO_SECRET_KEY, MEDIA_ROOT from its environment).
Six members `traag<n>@bench.koudwater.test` are made for it and deleted afterwards.

    bench/run.sh calls it; alone: (the env of bench/run.sh) .venv/bin/python bench/slow_upload.py --out FILE.json
    --rate-mbit 3  for a quicker try (the same five uploads, about 14 s each)
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

GOAL_DELAY_S = 0.5
PASSWORD = "ijskoud-traag"  # noqa: S105 - a bench member on loopback, deleted afterwards
EMAIL = "traag{}@bench.koudwater.test"


def _members(count: int):
    from apps.accounts.models import User
    from apps.accounts.removal import account_delete
    from apps.challenges.models import Challenge
    from apps.challenges.services.cards import challenge_start

    for user in User.objects.filter(email__endswith="@bench.koudwater.test", email__startswith="traag"):
        account_delete(user=user, password=PASSWORD)
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    users = []
    for number in range(count):
        user = User.objects.create_user(email=EMAIL.format(number), password=PASSWORD, full_name=f"Traag {number}")
        challenge_start(user=user, challenge_id=waterdieren.pk)
        users.append(user)
    return users


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=5)
    parser.add_argument("--photo-mb", type=float, default=5)
    parser.add_argument("--rate-mbit", type=float, default=0.75)
    parser.add_argument("--out")
    args = parser.parse_args()

    import django

    django.setup()
    from apps.challenges.models import Dip
    from tests.support.cluster import Browser, gunicorn, multipart, nginx, phone_photo

    users = _members(args.uploads + 1)
    workdir = Path(tempfile.mkdtemp(prefix="koud-slow-upload-"))
    env = {
        **os.environ,
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "GUNICORN_WORKERS": "5",
        "GUNICORN_TIMEOUT": "30",
        "TRUSTED_PROXY_COUNT": "1",
    }
    app = gunicorn("slow-upload-web", env=env, workdir=workdir)
    proxy = nginx(upstreams=[f"127.0.0.1:{app.port}"], workdir=workdir, media_root=Path(os.environ["MEDIA_ROOT"]))
    try:
        app.start()
        proxy.start()
        browsers = [Browser(port=proxy.port) for _ in users]
        for user, browser in zip(users, browsers, strict=True):
            browser.sign_in(user.email, PASSWORD)
        reader, uploaders = browsers[0], browsers[1:]
        quiet = [reader.get("/dashboard").seconds for _ in range(7)]

        photo_bytes = int(args.photo_mb * 1_000_000)
        seconds = photo_bytes * 8 / (args.rate_mbit * 1_000_000)
        bodies = [multipart({"request_id": str(uuid.uuid4())}, photo=phone_photo(photo_bytes)) for _ in uploaders]
        answers = [None] * len(uploaders)
        progress = [[0] for _ in uploaders]

        def upload(index: int) -> None:
            content_type, body = bodies[index]
            answers[index] = uploaders[index].send_slowly(
                "/challenge/plons", body=body, content_type=content_type, seconds=seconds, progress=progress[index]
            )

        threads = [threading.Thread(target=upload, args=(index,)) for index in range(len(uploaders))]
        for thread in threads:
            thread.start()
        during = []
        time.sleep(min(5, seconds / 4))
        # Sample while every photo is still on the line: the time the workers were held. (Decoding
        # the five photos afterwards costs CPU, as it does without a proxy; make bench measures that apart.)
        while all(sent[0] < len(body) for sent, (_, body) in zip(progress, bodies, strict=True)):
            answer = reader.get("/dashboard")
            assert answer.status == 200, answer.status
            during.append(answer.seconds)
            time.sleep(1)
        for thread in threads:
            thread.join()
        arrived = sum(Dip.objects.filter(user=user).exclude(photo="").count() for user in users[1:])
    finally:
        proxy.stop()
        app.stop()
        _members(0)

    row = {
        "uploads": len(uploaders),
        "photo_bytes": photo_bytes,
        "rate_mbit": args.rate_mbit,
        "upload_seconds": [round(answer.seconds, 1) for answer in answers],
        "statuses": [answer.status for answer in answers],
        "arrived": arrived,
        "dashboard_quiet_ms": round(statistics.median(quiet) * 1000, 1),
        "dashboard_during_max_ms": round(max(during) * 1000, 1),
        "dashboard_during_median_ms": round(statistics.median(during) * 1000, 1),
        "dashboard_samples": len(during),
    }
    row["delay_ms"] = round(row["dashboard_during_max_ms"] - row["dashboard_quiet_ms"], 1)
    row["goal_met"] = row["delay_ms"] < GOAL_DELAY_S * 1000 and arrived == len(uploaders)
    print(
        f"   {row['uploads']} x {args.photo_mb:g} MB at {args.rate_mbit:g} Mbit/s through nginx: uploads "
        f"{min(row['upload_seconds'])}-{max(row['upload_seconds'])} s, {arrived} arrived; /dashboard "
        f"{row['dashboard_quiet_ms']} ms quiet, during: median {row['dashboard_during_median_ms']} ms, "
        f"at most {row['dashboard_during_max_ms']} ms "
        f"({row['dashboard_samples']} samples): delay {row['delay_ms']} ms (goal < {GOAL_DELAY_S * 1000:.0f} ms)"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(row))


if __name__ == "__main__":
    main()
