"""The three admin lists (users, invitations, photos) on the bench data: answer size, rows, queries and
server time per request, for the first page, a later page, searches and sort orders.

Run it once on `seed_load_data` (2,000 members) and once on `seed_load_data --members 20000`: the issue's
goal is the same cost at both sizes, at most 100 rows and 60 KB per answer.

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=... python bench/admin_lists.py --out a.json

`ms` is the median wall time of --repeat requests through Django's test client (app and database);
`cpu_ms` the median CPU time of this process alone (the app's share). On a busy machine both are noisy:
compare the two sizes within one run of the machine, as ratios.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.demo.load_data import LOAD_ADMIN_EMAIL  # noqa: E402

USERS = "/admin/api/gebruikers"
LISTS = {"users": (USERS, "users"), "invitations": ("/admin/api/uitnodigingen", "invitations")}
LISTS["photos"] = ("/admin/api/fotos", "photos")
# (label, list, query string); "page 3" follows the cursors of the pages before it.
CASES = [
    ("users: first page (newest first)", "users", {}),
    ("users: page 3", "users", {"_page": 3}),
    ("users: sort by dips, most first", "users", {"sort": "dipCount", "dir": "desc"}),
    ("users: sort by dips, page 3", "users", {"sort": "dipCount", "dir": "desc", "_page": 3}),
    ("users: sort by name", "users", {"sort": "name", "dir": "asc"}),
    ("users: sort by e-mail, descending", "users", {"sort": "email", "dir": "desc"}),
    ("users: search 'jan' (common)", "users", {"q": "jan"}),
    ("users: search 'lid0042' (rare)", "users", {"q": "lid0042"}),
    ("invitations: first page", "invitations", {}),
    ("invitations: page 3", "invitations", {"_page": 3}),
    ("invitations: sort by e-mail", "invitations", {"sort": "email", "dir": "asc"}),
    ("invitations: sort by expiry, page 3", "invitations", {"sort": "expiresAt", "dir": "desc", "_page": 3}),
    ("invitations: search 'lid01'", "invitations", {"q": "lid01"}),
    ("photos: first page", "photos", {}),
    ("photos: page 3", "photos", {"_page": 3}),
    ("photos: oldest first, page 3", "photos", {"dir": "asc", "_page": 3}),
    ("photos: search 'jan' (common)", "photos", {"q": "jan"}),
    ("photos: search 'lid0042' (rare)", "photos", {"q": "lid0042"}),
]


def get(client: Client, url: str, params: dict):
    return client.get(url, params, secure=True, HTTP_HOST="127.0.0.1")


def measure(client: Client, url: str, params: dict, repeat: int) -> dict:
    queries = []  # counted by a wrapper: the query log is emptied at every request start

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        response = get(client, url, params)
    if response.status_code != 200:
        raise SystemExit(f"{url} {params} answered {response.status_code}: {response.content[:200]!r}")
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        get(client, url, params)
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
    return {
        "bytes": len(response.content),
        "queries": len(queries),
        "ms": round(statistics.median(walls), 2),
        "cpu_ms": round(statistics.median(cpus), 2),
        "body": response.json(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    client = Client()
    # The load data gives the load admin the second factor the admin role needs (apps.demo.load_data).
    client.force_login(User.objects.get(email=LOAD_ADMIN_EMAIL))
    members = User.objects.count()
    rows = {}
    for label, name, params in CASES:
        url, key = LISTS[name]
        params = dict(params)
        page = params.pop("_page", 1)
        for _ in range(page - 1):  # walk to the page by its cursors, as the island does
            params["cursor"] = get(client, url, params).json()["next"]
        result = measure(client, url, params, args.repeat)
        body = result.pop("body")
        rows[label] = {**result, "rows": len(body[key]), "more": body["next"] is not None}
    print(f"{members} gebruikers in de database")
    print(f"| {'case':36} | rows | bytes | queries | ms (wall) | ms (app CPU) |")
    print(f"|{'-' * 38}|-----:|------:|--------:|----------:|-------------:|")
    for label, row in rows.items():
        print(
            f"| {label:36} | {row['rows']:>4} | {row['bytes']:>5} | {row['queries']:>7} | {row['ms']:>9} "
            f"| {row['cpu_ms']:>12} |"
        )
    if args.out:
        Path(args.out).write_text(json.dumps({"users_in_database": members, "cases": rows}, indent=2))


if __name__ == "__main__":
    main()
