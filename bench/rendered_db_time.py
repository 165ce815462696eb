"""What a page costs when it is rendered, not served from the page cache: the first visit after a write.

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://root@127.0.0.1:5432/koud_bench \\
    REDIS_URL=redis://127.0.0.1:6379/0 DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=127.0.0.1 \\
    python bench/rendered_db_time.py [--rounds 3] [--out rendered_db_time.json]

Before each request the scopes the page shows are moved (as the write that precedes the visit does:
another member's dip for /club, any dip for /admin), outside the timing. Per page: the wall time (the
database's answers included: that is where a count over the club's history shows) and the CPU time of
this process per request, the queries of one request and the database pages (8 KB blocks) they read, next
to a bare signed-in page. Medians over
`--rounds` rounds. `/veilig` is measured as it is served (nothing to move: the same text for everyone).
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
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.core import page_cache, page_versions  # noqa: E402
from apps.demo.load_data import BENCH_MEMBER_EMAIL, LOAD_ADMIN_EMAIL  # noqa: E402

# (url, who, the shared scopes a preceding write moves)
PAGES = [
    ("/bench/kaal", "member", ()),
    ("/club", "member", (page_cache.FEED,)),
    ("/admin", "admin", (page_cache.CLUB,)),
    ("/veilig", "member", ()),
]


def _clients() -> dict[str, Client]:
    clients = {}
    for who, email in (("member", BENCH_MEMBER_EMAIL), ("admin", LOAD_ADMIN_EMAIL)):
        client = Client()
        client.force_login(User.objects.get(email=email))
        clients[who] = client
    return clients


def _one(client: Client, url: str, scopes: tuple[str, ...]) -> tuple[float, float]:
    for scope in scopes:
        page_versions.bump(scope)  # what pages_changed does after the write's commit
    wall, cpu = time.perf_counter(), time.process_time()
    response = client.get(url, secure=True, HTTP_HOST="127.0.0.1")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if response.status_code != 200:
        raise SystemExit(f"{url} antwoordt {response.status_code} in plaats van 200: geen meting")
    return wall * 1000, cpu * 1000


def _blocks(captured: list[dict]) -> int:
    """The database pages the request's reads touched (PostgreSQL's buffer counts of each SELECT run again):
    unlike a time, the same on a busy machine, and it grows with the rows a query reads."""
    if connection.vendor != "postgresql":
        return 0
    total = 0
    with connection.cursor() as cursor:
        for query in captured:
            if query["sql"].startswith("SELECT"):
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query["sql"])
                plan = cursor.fetchone()[0][0]["Plan"]
                total += plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)
    return total


def _database_ms(captured: list[dict], runs: int = 5) -> float:
    """The database's own execution time of the request's SELECTs (EXPLAIN ANALYZE, planning left out),
    the median of `runs`: the part of the wall time that grows with the rows a query reads."""
    if connection.vendor != "postgresql":
        return 0.0
    totals = []
    with connection.cursor() as cursor:
        for _ in range(runs):
            total = 0.0
            for query in captured:
                if query["sql"].startswith("SELECT"):
                    cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query["sql"])
                    total += cursor.fetchone()[0][0]["Execution Time"]
            totals.append(total)
    return round(statistics.median(totals), 2)


def measure(*, rounds: int, requests: int) -> dict:
    clients = _clients()
    result = {}
    for url, who, scopes in PAGES:
        for _ in range(3):
            _one(clients[who], url, scopes)  # warm: templates, URL resolver
        walls, cpus = [], []
        for _ in range(rounds):
            samples = [_one(clients[who], url, scopes) for _ in range(requests)]
            walls.append(statistics.mean(s[0] for s in samples))
            cpus.append(statistics.mean(s[1] for s in samples))
        with CaptureQueriesContext(connection) as queries:
            _one(clients[who], url, scopes)
        result[url] = {
            "who": who,
            "wall_ms": round(statistics.median(walls), 2),
            "cpu_ms": round(statistics.median(cpus), 2),
            "queries": len(queries.captured_queries),
            "blocks": _blocks(queries.captured_queries),
            "database_ms": _database_ms(queries.captured_queries),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--out")
    args = parser.parse_args()
    with override_settings(ROOT_URLCONF="bench.bare_urls"):
        result = measure(rounds=args.rounds, requests=args.requests)
    print("| URL | rendered: wall ms/req | CPU ms/req | queries | database ms | database pages read |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for url, page in result.items():
        print(
            f"| `{url}` | {page['wall_ms']:.2f} | {page['cpu_ms']:.2f} | {page['queries']} | "
            f"{page['database_ms']:.2f} | {page['blocks']} |"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
