"""What a page costs the app process, as a multiple of a bare signed-in page (issue 12's yardstick).

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://root@127.0.0.1:5432/koud_bench \\
    DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=127.0.0.1 python bench/page_cost.py --out page_cost.json

Through Django's test client on the bench database, with every middleware of production: the CPU time
of this process per request (time.process_time, so waiting on PostgreSQL or Redis does not count,
their own CPU neither), for the member pages and the admin page, and for a bare signed-in page added
for this measurement only (`bench/bare_urls.py`: the session, the user and a few bytes). Pages are
measured in turns, several rounds, and each page's median round is kept: a neighbour on the machine
slows one round, not the median.
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

from django.test import Client, override_settings  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.demo.load_data import BENCH_MEMBER_EMAIL, LOAD_ADMIN_EMAIL  # noqa: E402

BARE = "/bench/kaal"
# (url, who, goal as a multiple of the bare page)
PAGES = [
    (BARE, "member", None),
    ("/dashboard", "member", 2.0),
    ("/challenge", "member", 2.0),
    ("/samen", "member", 2.0),  # the plan list (events and plonsafspraken; /events leads there)
    ("/statistieken", "member", 2.0),
    ("/account", "member", 2.0),
    ("/", "member", 2.0),
    ("/admin", "admin", 3.0),
]


def _clients() -> dict[str, Client]:
    clients = {}
    for who, email in (("member", BENCH_MEMBER_EMAIL), ("admin", LOAD_ADMIN_EMAIL)):
        client = Client()
        client.force_login(User.objects.get(email=email))
        clients[who] = client
    return clients


def _cpu_ms_per_request(client: Client, url: str, requests: int) -> float:
    started = time.process_time()
    for _ in range(requests):
        response = client.get(url, secure=True, HTTP_HOST="127.0.0.1")
        if response.status_code != 200:
            raise SystemExit(f"{url} antwoordt {response.status_code} in plaats van 200: geen meting")
    return (time.process_time() - started) / requests * 1000


def measure(*, rounds: int, requests: int) -> dict:
    clients = _clients()
    samples: dict[str, list[float]] = {url: [] for url, _, _ in PAGES}
    for url, who, _ in PAGES:  # warm: templates, URL resolver, manifest, caches
        _cpu_ms_per_request(clients[who], url, 5)
    for _ in range(rounds):
        for url, who, _ in PAGES:
            samples[url].append(_cpu_ms_per_request(clients[who], url, requests))
    bare = statistics.median(samples[BARE])
    return {
        "rounds": rounds,
        "requests_per_round": requests,
        "pages": {
            url: {
                "who": who,
                "cpu_ms": round(statistics.median(samples[url]), 3),
                "times_bare": round(statistics.median(samples[url]) / bare, 2),
                "goal_times_bare": goal,
            }
            for url, who, goal in PAGES
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--out")
    args = parser.parse_args()
    with override_settings(ROOT_URLCONF="bench.bare_urls"):
        result = measure(rounds=args.rounds, requests=args.requests)
    print("| URL | CPU ms/req | × bare | goal |")
    print("| --- | ---: | ---: | ---: |")
    for url, page in result["pages"].items():
        goal = f"≤ {page['goal_times_bare']:g}×" if page["goal_times_bare"] else "-"
        print(f"| `{url}` | {page['cpu_ms']:.2f} | {page['times_bare']:.2f} | {goal} |")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
