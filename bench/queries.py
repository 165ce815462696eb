"""Does any page's query count grow with the data? Count the queries of every bench URL twice:

1. on the full load data, as the bench member (204 dips, 12 badges) and the load admin;
2. on a tiny club: inside a transaction that is rolled back at the end, every load member but the one
   with the fewest dips is deleted, with all load invitations and events. A VACUUM (ANALYZE) afterwards
   leaves the tables as the seed left them.

Also the in-process time of each page (Django test client, median of --repeat runs), so a page whose
time grows with the data shows too. Writes JSON (to --out) and prints a small table.

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=... python bench/queries.py --out q.json
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.core.cache import cache  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from pages import PAGES  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.challenges.models import Dip, UserBadge  # noqa: E402
from apps.demo.load_data import (  # noqa: E402
    BENCH_MEMBER_EMAIL,
    EVENT_PREFIX,
    LOAD_ADMIN_EMAIL,
    LOAD_DOMAIN,
    delete_without_loading,
    refresh_statistics,
)
from apps.events.models import Event  # noqa: E402
from apps.invitations.models import Invitation  # noqa: E402


def measure(member: User, admin: User, repeat: int) -> dict:
    clients = {"none": Client(), "member": Client(), "admin": Client()}
    clients["member"].force_login(member)
    clients["admin"].force_login(admin)
    result = {}
    for url, who in PAGES:
        client = clients[who]
        cache.clear()  # count what rendering the page costs, not the cached copy (two to four queries)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, secure=True, HTTP_HOST="127.0.0.1")
        if response.status_code != 200:
            raise SystemExit(f"{url} as {who} answered {response.status_code}")
        count = len(queries)  # now: every request clears the query log
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            client.get(url, secure=True, HTTP_HOST="127.0.0.1")
            times.append((time.perf_counter() - started) * 1000)
        result[url] = {"queries": count, "ms": round(statistics.median(times), 2), "bytes": len(response.content)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()

    admin = User.objects.get(email=LOAD_ADMIN_EMAIL)
    bench_member = User.objects.get(email=BENCH_MEMBER_EMAIL)
    members = User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}").exclude(pk=admin.pk)
    light = members.annotate(n=Count("dips")).order_by("n", "pk").first()
    with transaction.atomic():
        full = measure(bench_member, admin, args.repeat)
        others = members.exclude(pk=light.pk)
        delete_without_loading(UserBadge.objects.filter(user__in=others))
        delete_without_loading(Dip.objects.filter(user__in=others))
        Invitation.objects.filter(invited_by=admin).delete()
        Event.objects.filter(title__startswith=EVENT_PREFIX).delete()
        others.delete()
        light_dips = Dip.objects.filter(user=light).count()
        tiny = measure(light, admin, args.repeat)
        transaction.set_rollback(True)
    # The rolled-back deletes still touched every page of those tables, which clears PostgreSQL's
    # visibility map: without a vacuum, index-only scans (the users table's counts, the admin's total)
    # would visit the table again, and the bench that follows would measure that.
    refresh_statistics()

    report = {
        "full": {"member": BENCH_MEMBER_EMAIL, "member_dips": Dip.objects.filter(user=bench_member).count()},
        "tiny": {"member": light.email, "member_dips": light_dips},
        "pages": {url: {"full": full[url], "tiny": tiny[url]} for url, _ in PAGES},
    }
    print(f"{'URL':28} {'queries full':>12} {'queries tiny':>12} {'ms full':>8} {'ms tiny':>8}")
    for url, row in report["pages"].items():
        flag = "" if row["full"]["queries"] == row["tiny"]["queries"] else "  <-- grows with the data"
        print(
            f"{url:28} {row['full']['queries']:>12} {row['tiny']['queries']:>12} "
            f"{row['full']['ms']:>8} {row['tiny']['ms']:>8}{flag}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
