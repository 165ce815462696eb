"""Profile one page against the bench database: cProfile over N requests through Django's test client,
plus every SQL query of one request with its time.

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://root@127.0.0.1:5432/koud_bench \\
    DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=127.0.0.1 python bench/profile_page.py /dashboard --who member -n 50

--who: none, member (lid0001, the bench member) or admin (the load admin). --sort tottime|cumulative.
"""

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.demo.load_data import BENCH_MEMBER_EMAIL, LOAD_ADMIN_EMAIL  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--who", choices=["none", "member", "admin"], default="member")
    parser.add_argument("-n", type=int, default=50)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--limit", type=int, default=30)
    args = parser.parse_args()

    client = Client()
    if args.who != "none":
        client.force_login(User.objects.get(email=BENCH_MEMBER_EMAIL if args.who == "member" else LOAD_ADMIN_EMAIL))

    def get():
        response = client.get(args.url, secure=True, HTTP_HOST="127.0.0.1")
        assert response.status_code == 200, response.status_code
        return response

    get()  # warm: templates, URL resolver, manifest
    with CaptureQueriesContext(connection) as queries:
        get()
    print(f"{len(queries)} queries:")
    for query in queries.captured_queries:
        print(f"  {query['time']}s  {query['sql'][:300]}")

    started = time.perf_counter()
    for _ in range(args.n):
        get()
    plain = (time.perf_counter() - started) / args.n * 1000
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.n):
        get()
    profiler.disable()
    print(f"\n{plain:.2f} ms per request without the profiler ({args.n} requests)\n")
    pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.limit)


if __name__ == "__main__":
    main()
