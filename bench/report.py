"""Turn the raw numbers of bench/run.sh into bench/results/latest.md and the table in docs/performance.md.

    python bench/report.py --results bench/results --workers "5 1" --connections 16 --threads 2 --duration 15s

docs/performance.md keeps its own text; only the part between the bench markers is replaced.
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pages import PAGES  # noqa: E402
from rendered_load import report_lines as rendered_load_lines  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
# The goals.
RATIO_GOAL = 0.35  # issue 23 §8: every member page (each URL loaded as the bench member), not only two
P99_GOAL_MS = 100.0
# Issue 28: first visits of both pages ≤ 1.5 s, next visits (service worker in control) ≤ 0.6 s, a photo dip < 4 s.
PHONE_LCP_GOALS_MS = {"/dashboard": 1500.0, "/challenge": 1500.0}
PHONE_NEXT_LCP_GOAL_MS = 600.0
PHOTO_DIP_GOAL_MS = 4000.0
PHOTO_UPLOAD_GOAL_BYTES = 280_000  # issue 37 §2: a detailed 12 MP photo goes up in at most 280 KB
WHO = {"none": "-", "member": "lid0001", "admin": "load admin"}


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def machine(workers: str) -> dict:
    cpu = re.search(r"^model name\s*:\s*(.+)$", _read("/proc/cpuinfo"), re.M)
    mem = re.search(r"^MemTotal:\s*(\d+) kB", _read("/proc/meminfo"), re.M)
    try:
        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
            postgres = conn.execute("SHOW server_version").fetchone()[0]
    except Exception as exc:  # noqa: BLE001 - the report still has value without it
        postgres = f"unknown ({exc.__class__.__name__})"
    try:
        wrk = subprocess.run(["wrk", "-v"], capture_output=True, text=True, check=False).stdout.split()[1]  # noqa: S607
    except (OSError, IndexError):
        wrk = "unknown"
    try:
        import django

        django_version = django.get_version()
    except ImportError:
        django_version = "unknown"
    worker_count, thread_count = (workers.split() + ["?", "?"])[:2]
    return {
        "cores": os.cpu_count(),
        "cpu": cpu.group(1).strip() if cpu else platform.processor() or "unknown",
        "ram_gb": round(int(mem.group(1)) / 1024 / 1024, 1) if mem else None,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "django": django_version,
        "postgres": postgres,
        "wrk": wrk,
        "workers": worker_count,
        "threads": thread_count,
    }


def load_rows(raw: Path) -> list[dict]:
    rows = []
    for url, _ in PAGES:
        path = raw / (url.replace("/", "_") + ".json")
        if path.exists():
            rows.append(json.loads(path.read_text()))
    return rows


def build(results: Path, args) -> str:
    raw = results / "raw"
    rows = load_rows(raw)
    if not rows:
        raise SystemExit(f"no results in {raw}")
    queries = json.loads((raw / "queries.json").read_text()) if (raw / "queries.json").exists() else {"pages": {}}
    info = machine(args.workers)
    seed_ms = _read(raw / "seed_ms.txt").strip()
    loadavg = _read(raw / "loadavg.txt").strip() or "?"
    seed_text = _read(raw / "seed.txt")
    seed_line = next((line.strip() for line in seed_text.splitlines() if "leden," in line), "")
    seed_line = re.sub(r"\s*\([\d.]+ s\)$", "", seed_line)
    if seed_ms:
        seed_state = "already there, nothing written" if "niets veranderd" in seed_text else "written"
        seed_line += f" ({seed_state}; `seed_load_data` took {int(seed_ms) / 1000:.1f} s in this run)"

    for row in rows:
        seconds = row["duration_us"] / 1e6
        row["rps"] = row["requests"] / seconds
        row["errors"] = sum(row[f"errors_{kind}"] for kind in ("connect", "read", "write", "status", "timeout"))
        row["avg_bytes"] = row["bytes"] / row["requests"] if row["requests"] else 0
        cpu = row.get("cpu_app_s", 0) + row.get("cpu_db_s", 0)
        row["cpu_ms"] = cpu * 1000 / row["requests"] if row["requests"] and cpu else None
    health = next((row for row in rows if row["url"] == "/healthz"), None)
    health_rps = health["rps"] if health else None
    health_cpu = health["cpu_ms"] if health else None

    lines = [
        f"Measured {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z} with `make bench`: gunicorn "
        f"({info['workers']} {'sync' if info['threads'] == '1' else 'gthread'} workers × {info['threads']} "
        f"thread{'' if info['threads'] == '1' else 's'}, production settings, "
        f"{'cache in Redis, sessions' if os.environ.get('REDIS_URL') else 'sessions and cache'} in the database) "
        "and PostgreSQL "
        f"{info['postgres']} on one machine, loaded from the same machine by wrk {info['wrk']} "
        f"(`-t{args.threads} -c{args.connections} -d{args.duration}` per URL, after a short warm-up).",
        "",
        f"Machine: {info['cores']} cores ({info['cpu']}), {info['ram_gb']} GB RAM, Linux {info['kernel']}, "
        f"Python {info['python']}, Django {info['django']}. wrk, gunicorn and PostgreSQL share the "
        f"{info['cores']} cores, so every number is lower than on a machine that serves only. Load average "
        f"just before the run (1, 5, 15 min): {loadavg}; anything above ~0.5 means other work competed for the cores.",
        "",
        f"Data: {seed_line or 'see bench/results/raw/seed.txt'}.",
        "",
        "| URL | signed in | req/s | vs /healthz | p50 ms | p99 ms | errors | non-200 | server CPU ms/req "
        "| CPU vs /healthz | queries (full / tiny) | bytes |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        q = queries["pages"].get(row["url"], {})
        q_text = f"{q['full']['queries']} / {q['tiny']['queries']}" if q else "?"
        ratio = f"{row['rps'] / health_rps:.0%}" if health_rps else "?"
        cpu_text = f"{row['cpu_ms']:.2f}" if row["cpu_ms"] else "?"
        cpu_ratio = f"{health_cpu / row['cpu_ms']:.0%}" if health_cpu and row["cpu_ms"] else "?"
        lines.append(
            f"| `{row['url']}` | {WHO.get(row['who'], row['who'])} | {row['rps']:.0f} | {ratio} | "
            f"{row['p50_us'] / 1000:.1f} | {row['p99_us'] / 1000:.1f} | {row['errors']} | {row['non200']} | "
            f"{cpu_text} | {cpu_ratio} | {q_text} | {row['avg_bytes']:.0f} |"
        )
    lines += [
        "",
        "*errors*: wrk's socket errors, timeouts and answers ≥ 400. *non-200*: every answer other than 200 "
        "(redirects included) in gunicorn's access log during the measured run; each URL was also checked "
        "to answer 200 with its cookie before and after it was loaded. *queries*: per request, on the full "
        "load data (bench member with "
        f"{queries.get('full', {}).get('member_dips', '?')} dips) and on a tiny club (a member with "
        f"{queries.get('tiny', {}).get('member_dips', '?')} dips, everything else deleted in a rolled-back "
        "transaction). *server CPU*: user + system CPU time of gunicorn (master and workers) and of the "
        "PostgreSQL backends of the bench database during the run, per request; wrk's own share is not in it. "
        "It moves far less than req/s when other work competes for the cores. *CPU vs /healthz*: /healthz's "
        "CPU per request divided by the page's: the throughput ratio a server that is only CPU-bound would "
        "show. *bytes*: average response size including headers.",
        "",
        "Goals (issues 7, 12 and 23):",
        "",
    ]
    for row in rows:
        page = row["url"]
        if row["who"] == "member" and health_rps:
            ratio = row["rps"] / health_rps
            verdict = "met" if ratio >= RATIO_GOAL else f"**missed** by {RATIO_GOAL - ratio:.0%} points"
            by_cpu = (
                f" (by server CPU per request: {health_cpu / row['cpu_ms']:.0%})"
                if health_cpu and row["cpu_ms"]
                else ""
            )
            lines.append(f"- `{page}` at ≥ {RATIO_GOAL:.0%} of `/healthz` throughput: {ratio:.0%}{by_cpu}, {verdict}.")
    slow = [r for r in rows if r["p99_us"] / 1000 > P99_GOAL_MS]
    if slow:
        listing = ", ".join(f"`{r['url']}` {r['p99_us'] / 1000:.0f} ms" for r in slow)
        others = len(rows) - len(slow)
        lines.append(f"- p99 ≤ {P99_GOAL_MS:.0f} ms: **missed** on {listing}; met on the other {others}.")
    else:
        lines.append(f"- p99 ≤ {P99_GOAL_MS:.0f} ms: met on every URL.")
    growing = [url for url, q in queries["pages"].items() if q["full"]["queries"] != q["tiny"]["queries"]]
    if not queries["pages"]:
        lines.append("- query counts: not measured in this run.")
    elif growing:
        lines.append(f"- query count constant: **missed** on {', '.join(f'`{u}`' for u in growing)}.")
    else:
        lines.append("- no page's query count grows with the data: met (same count on the full and the tiny club).")
    lines += page_cost_lines(raw / "page_cost.json")
    lines += rendered_cost_lines(raw / "rendered_cost.json")
    lines += rendered_load_lines(raw, health)
    lines += rendered_db_time_lines(raw / "rendered_db_time.json")
    lines += phone_lines(raw / "phone.json")
    failed = [r["url"] for r in rows if r["errors"] or r["non200"] or r["status_after"] != 200]
    if failed:
        listing = ", ".join(f"`{u}`" for u in failed)
        lines.append(f"- **errors or non-200 answers** on {listing}: see bench/results/raw.")
    lines += photo_and_parsing_lines(raw)
    return "\n".join(lines) + "\n"


def page_cost_lines(path: Path) -> list[str]:
    """bench/page_cost.py: the app process's CPU per request as a multiple of a bare signed-in page."""
    if not path.exists():
        return ["", "CPU per request against a bare signed-in page: not measured in this run."]
    cost = json.loads(path.read_text())
    lines = [
        "",
        "CPU of the app process per request (`bench/page_cost.py`: Django's test client on the same data, "
        f"median of {cost['rounds']} rounds of {cost['requests_per_round']} requests), against a bare signed-in "
        "page (session, user, a few bytes):",
        "",
        "| URL | CPU ms/req | × bare page | goal |",
        "| --- | ---: | ---: | --- |",
    ]
    verdicts = []
    for url, page in cost["pages"].items():
        goal = page["goal_times_bare"]
        after = f" ({page['after']})" if page.get("after") else ""
        lines.append(
            f"| `{url}`{after} | {page['cpu_ms']:.2f} | {page['times_bare']:.2f} | {f'≤ {goal:g}×' if goal else '-'} |"
        )
        if goal:
            verdict = "met" if page["times_bare"] <= goal else f"**missed** by {page['times_bare'] - goal:.2f}×"
            verdicts.append(f"- `{url}` at ≤ {goal:g}× a bare signed-in page: {page['times_bare']:.2f}×, {verdict}.")
    return [*lines, "", *verdicts]


def rendered_db_time_lines(path: Path) -> list[str]:
    """bench/rendered_db_time.py: pages rendered after the write that precedes them, and the database's part."""
    if not path.exists():
        return ["", "Rendered pages: not measured in this run."]
    pages = json.loads(path.read_text())
    lines = [
        "",
        "Pages as rendered after the write that precedes them (`bench/rendered_db_time.py`: the scopes moved before "
        "each request): wall and CPU time per request, the database's own execution time of the page's queries "
        "and the 8 KB pages they read. Goal (issue 37 §5): the database's part does not grow with the club's history.",
        "",
        "| URL | wall ms | CPU ms | queries | database ms | database pages |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for url, page in pages.items():
        lines.append(
            f"| `{url}` | {page['wall_ms']:.2f} | {page['cpu_ms']:.2f} | {page['queries']} | "
            f"{page['database_ms']:.2f} | {page['blocks']} |"
        )
    return lines


def rendered_cost_lines(path: Path) -> list[str]:
    """bench/rendered_cost.py: each member page as rendered after the write that precedes it (issue 37)."""
    if not path.exists():
        return ["", "Pages as rendered after their write: not measured in this run."]
    cost = json.loads(path.read_text())
    lines = [
        "",
        "CPU of the app process for each member page as rendered right after the write that typically precedes "
        f"it (`bench/rendered_cost.py`: the write, then one timed request; median of {cost['rounds']} rounds; "
        f"visitor {cost.get('visitor', '?')}), against a bare signed-in page:",
        "",
        "| URL (after its write) | CPU ms | × bare page | next visit (cached) × bare | goal |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    verdicts = []
    for url, page in cost["pages"].items():
        goal = page["goal_times_bare"]
        after = f" ({page['after']})" if page.get("after") else ""
        lines.append(
            f"| `{url}`{after} | {page['cpu_ms']:.2f} | {page['times_bare']:.2f} | {page['cached_times_bare']:.2f} "
            f"| {f'≤ {goal:g}×' if goal else '-'} |"
        )
        if goal:
            verdict = "met" if page["times_bare"] <= goal else f"**missed** by {page['times_bare'] - goal:.2f}×"
            verdicts.append(
                f"- `{url}`{after} rendered after its write at ≤ {goal:g}× a bare page: "
                f"{page['times_bare']:.2f}×, {verdict}."
            )
    return [*lines, "", *verdicts]


def phone_lines(path: Path) -> list[str]:
    """The phone table of bench/phone.py: the browser's own timings on a throttled line and CPU."""
    if not path.exists():
        return ["", "Phone: not measured in this run."]
    phone = json.loads(path.read_text())
    profile = phone["profile"]
    lines = [
        "",
        f"Phone (`bench/phone.py`): headless Chromium at 390 × 844, {profile['latency_ms']} ms round trip, "
        f"{profile['down_kbit_s']} kbit/s down, {profile['up_kbit_s']} kbit/s up, {profile['cpu_slowdown']}× CPU "
        f"slowdown (Lighthouse's slow 4G, the service worker throttled too); medians of {profile['runs']} first "
        f"visits (empty cache) and {profile['runs']} next visits (the same profile, service worker in control). "
        "*HTML*: the page's HTML received.",
        "",
        "| URL | visit | HTML ms | FCP ms | LCP ms | requests | KB transferred |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for url, visits in phone["pages"].items():
        for visit, label in (("cold", "first"), ("warm", "next")):
            m = visits[visit]
            lines.append(
                f"| `{url}` | {label} | {m['html_ms']:.0f} | {m['fcp_ms']:.0f} | {m['lcp_ms']:.0f} | "
                f"{m['requests']:.0f} | {m['bytes'] / 1024:.1f} |"
            )
    lines.append("")
    for url, goal in PHONE_LCP_GOALS_MS.items():
        if url in phone["pages"]:
            for visit, label, limit in (("cold", "a first", goal), ("warm", "a next", PHONE_NEXT_LCP_GOAL_MS)):
                lcp = phone["pages"][url][visit]["lcp_ms"]
                verdict = "met" if lcp <= limit else f"**missed** by {lcp - limit:.0f} ms"
                lines.append(f"- `{url}` LCP ≤ {limit / 1000:.1f} s on {label} visit: {lcp / 1000:.2f} s, {verdict}.")
    for key, label in (("photo_dip", "a photo dip"), ("detailed_photo_dip", "a photo dip with a detailed photo")):
        dip = phone.get(key)
        if not dip:
            continue
        took = dip["tap_to_added_ms"]
        verdict = "met" if took < PHOTO_DIP_GOAL_MS else f"**missed** by {took - PHOTO_DIP_GOAL_MS:.0f} ms"
        # Since issue 37 §2 the photo follows its dip in a request of its own (before: one request with both).
        photo_sent = dip.get("photo_bytes_sent", dip["bytes_sent"])
        most = dip.get("max_photo_bytes_sent", dip.get("max_bytes_sent", photo_sent))
        sent = "" if most <= PHOTO_UPLOAD_GOAL_BYTES else f"; **over** {PHOTO_UPLOAD_GOAL_BYTES // 1000} KB sent"
        stored = (
            f"; the photo stored with its dip {dip['tap_to_photo_ms'] / 1000:.2f} s after the tap"
            if "tap_to_photo_ms" in dip
            else ""
        )
        lines.append(
            f"- {label} (a 12 MP photo of {dip['photo_bytes'] / 1024 / 1024:.1f} MB) from the tap to "
            f"'Plons toegevoegd!' under {PHOTO_DIP_GOAL_MS / 1000:.0f} s: {took / 1000:.2f} s, the photo "
            f"{photo_sent / 1000:.0f} KB sent (most {most / 1000:.0f} KB; goal ≤ "
            f"{PHOTO_UPLOAD_GOAL_BYTES // 1000} KB) (median of {len(dip['runs'])}), {verdict}{sent}{stored}."
        )
    for key, label in (("visit_after_dip", "a dip"), ("visit_after_photo_dip", "a dip with a photo")):
        after = phone.get(key)
        if not after:
            continue
        # Goal 3: the page a member opens after her dip, once the worker kept it again, opens at once with her new
        # count (shown at first and still after the worker's refresh behind it) and only hers.
        lcp = after["lcp_ms"]
        verdict = "met" if lcp <= PHONE_NEXT_LCP_GOAL_MS else f"**missed** by {lcp - PHONE_NEXT_LCP_GOAL_MS:.0f} ms"
        right = sum(run["count_correct"] for run in after["runs"])
        counts = "" if after["count_correct"] else f"; **the new count not shown** in {len(after['runs']) - right}"
        kept = (
            f"kept again {after['tap_to_kept_ms'] / 1000:.2f} s after the tap"
            if after["tap_to_kept_ms"] is not None
            else "**never kept again** (the visit went to the network)"
        )
        shown = "" if after["kept"] else "; **not always shown from the phone**"
        lines.append(
            f"- `/dashboard` opened after {label}, LCP ≤ {PHONE_NEXT_LCP_GOAL_MS / 1000:.1f} s with the new count: "
            f"{lcp / 1000:.2f} s (the count painted at {(after['count_ms'] or lcp) / 1000:.2f} s; the page {kept}; "
            f"the member's own page with her new count in {right} of {len(after['runs'])}, median), "
            f"{verdict}{counts}{shown}."
        )
    return lines


def photo_and_parsing_lines(raw: Path) -> list[str]:
    """The photo pipeline per file (bench/photo_pipeline.py) and the pasted-text parser (bench/text_parsing.py)."""
    lines: list[str] = []
    if (raw / "photos.json").exists():
        photos = json.loads((raw / "photos.json").read_text())
        lines += [
            "",
            "Photo pipeline, one fresh process per file (goal: peak ≤ 150 MB for any file; 12 MP JPEG ≤ 1.5 s):",
            "",
            "| file | input | outcome | peak RSS | before the photo | time |",
            "| --- | ---: | --- | ---: | ---: | ---: |",
        ]
        for row in photos:
            outcome = row["outcome"] if row["as_expected"] else f"**{row['outcome']}** (expected {row['expected']})"
            peak = f"{row['peak_rss_mb']} MB" if row["within_memory_goal"] else f"**{row['peak_rss_mb']} MB**"
            lines.append(
                f"| {row['file']} | {row['input_bytes'] / 1e6:.1f} MB | {outcome} | {peak}"
                f" | {row['rss_before_mb']} MB | {row['seconds']} s |"
            )
        missed = [r["file"] for r in photos if not r["within_memory_goal"] or not r.get("within_time_goal", True)]
        lines += ["", f"- photo goals: **missed** on {', '.join(missed)}." if missed else "- photo goals: met."]
    if (raw / "text_parsing.json").exists():
        texts = [json.loads(line) for line in (raw / "text_parsing.json").read_text().splitlines() if line]
        slowest = max(texts, key=lambda row: row["seconds"])
        verdict = "met" if all(row["within_goal"] for row in texts) else "**missed**"
        lines.append(
            f"- a megabyte of hostile pasted text, {len(texts)} shapes: slowest {slowest['text']}"
            f" {slowest['seconds']} s (goal ≤ 1 s): {verdict}."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", default="bench/results")
    parser.add_argument("--workers", default="? ?")
    parser.add_argument("--connections", default="16")
    parser.add_argument("--threads", default="2")
    parser.add_argument("--duration", default="15s")
    parser.add_argument("--no-doc", action="store_true", help="write only bench/results/latest.md")
    args = parser.parse_args()
    results = Path(args.results)
    body = build(results, args)
    (results / "latest.md").write_text("# Benchmark: latest run\n\n" + body)
    print(body)
    if args.no_doc:
        return
    block = f"{BEGIN}\n{body}{END}"
    text = DOC.read_text() if DOC.exists() else f"# Performance\n\n{BEGIN}\n{END}\n"
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) :]
    else:
        text += "\n## Latest `make bench`\n\n" + block + "\n"
    DOC.write_text(text)
    print(f"Geschreven: {results / 'latest.md'} en {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
