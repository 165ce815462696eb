"""Member pages as rendered after their write, under wrk at 16 connections (issue 37, goal 1): every request a render.

    python bench/rendered_load.py record --out bench/results/raw/rendered_moves.json   # prints the visitor's e-mail

wrk asks for one URL over and over, so after the first answer it measures the page cache. To load the path
members take (the first visit after a write), `record` does each write of bench/rendered_cost.py once through
its service and notes what it moved in the page cache: the versions of shared scopes and of members' parts
(`bump`) and the members whose `pages_version` went up (`pages_changed(MEMBER, ...)`). Then it takes the write
back. bench/rendered_wsgi.py serves the app with one addition: a request with the header `X-Bench-After: <url>`
first moves exactly what that URL's write moved, so every request of the wrk run is a render of what the write
changed. The moves (a few Redis SETs, one UPDATE where a write touched `pages_version`) are part of the measured
server CPU and latency, so the page alone does at least as well.

What this does not repeat is the write's data: a list row whose own data the write changed (her sign-up on its
event card, the new afspraak on /samen, the shared dip in /club's feed) was rendered once and comes from the
section cache after that. bench/rendered_cost.py measures the CPU of the real write's render, that row included.
"""

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

RATIO_GOAL = 0.15  # of /healthz's throughput in the same run
P99_GOAL_MS = 150.0
HEADER = "X-Bench-After"


def record(out: Path) -> str:
    """Each write once, what it moved in the page cache, the write taken back; returns the visitor's e-mail."""
    from unittest import mock

    import rendered_cost

    from apps.accounts.models import User
    from apps.core import page_cache

    rendered_cost.VISITOR.append(rendered_cost.typical_member())
    moves = {}
    for url, write, said in rendered_cost.PAGES:
        if url == rendered_cost.BARE:
            continue
        bumped: list[str] = []
        real_bump = page_cache.bump

        def noting(*names: str, real_bump=real_bump, bumped=bumped) -> None:
            bumped.extend(names)
            real_bump(*names)

        before = dict(User.objects.values_list("pk", "pages_version"))
        with mock.patch.object(page_cache, "bump", noting):
            undo = write()
        after = dict(User.objects.values_list("pk", "pages_version"))
        undo()
        moves[url] = {
            "after": said,
            "versions": sorted(set(bumped)),
            "members": sorted(pk for pk, version in after.items() if before.get(pk) != version),
        }
    out.write_text(json.dumps({"visitor": rendered_cost.VISITOR[0].email, "moves": moves}, indent=1))
    return rendered_cost.VISITOR[0].email


def report_lines(raw: Path, health: dict | None) -> list[str]:
    """bench/report.py's part: the rendered paths under load, against /healthz of the same run."""
    moves_path = raw / "rendered_moves.json"
    rows = [json.loads(path.read_text()) for path in raw.glob("rendered_load_*.json")]
    if not moves_path.exists() or not rows:
        return ["", "Pages as rendered after their write, under load: not measured in this run."]
    recorded = json.loads(moves_path.read_text())
    order = list(recorded["moves"])  # the order of bench/rendered_cost.py
    rows.sort(key=lambda row: order.index(row["url"]))
    visitor = recorded["visitor"].split("@")[0]
    health_rps = health["requests"] / health["duration_us"] * 1e6 if health else None
    lines = [
        "",
        f"Member pages as rendered after their write, under the same wrk load (`bench/rendered_load.py`: before every "
        f"request the page cache moves as the write moved it, so every request is a render; as {visitor}, a member "
        "whose next dip is an ordinary one). Issue 37's goal: each at least "
        f"{RATIO_GOAL:.0%} of `/healthz`'s throughput with p99 ≤ {P99_GOAL_MS:.0f} ms.",
        "",
        "| URL (after its write) | req/s | vs /healthz | p50 ms | p99 ms | non-200 | server CPU ms/req | goal |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        rps = row["requests"] / row["duration_us"] * 1e6
        ratio = rps / health_rps if health_rps else None
        p99 = row["p99_us"] / 1000
        cpu = (row["cpu_app_s"] + row["cpu_db_s"]) * 1000 / max(row["requests"], 1)
        missed = []
        if ratio is None or ratio < RATIO_GOAL:
            missed.append(f"throughput by {RATIO_GOAL - ratio:.0%} points" if ratio is not None else "no /healthz")
        if p99 > P99_GOAL_MS:
            missed.append(f"p99 by {p99 - P99_GOAL_MS:.0f} ms")
        if row["non200"] or row["status_after"] != 200:
            missed.append("non-200 answers")
        verdict = "met" if not missed else "**missed**: " + ", ".join(missed)
        after = recorded["moves"][row["url"]]["after"]
        lines.append(
            f"| `{row['url']}` ({after}) | {rps:.0f} | {f'{ratio:.0%}' if ratio else '?'} | "
            f"{row['p50_us'] / 1000:.1f} | {p99:.1f} | {row['non200']} | {cpu:.2f} | {verdict} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    recorder = sub.add_parser("record", help="each write once: what it moved, into --out; prints the visitor")
    recorder.add_argument("--out", type=Path, required=True)
    urls = sub.add_parser("urls", help="the URLs to load and the write before each, one per line")
    urls.add_argument("--moves", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "record":
        import django

        django.setup()
        print(record(args.out))
    else:
        for url in json.loads(args.moves.read_text())["moves"]:
            print(url)


if __name__ == "__main__":
    main()
