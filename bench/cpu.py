"""CPU seconds (user + system) that gunicorn (master and workers) and the PostgreSQL backends of the
bench database use while it runs. bench/run.sh starts it before a measured wrk run and stops it with
SIGTERM afterwards; it then prints "<gunicorn seconds> <postgres seconds>". Divided by the requests
served, that is the server's own cost per request, which other work on the machine hardly changes,
unlike requests per second.

    python bench/cpu.py <gunicorn master pid> <database name>

It samples every 0.2 s rather than comparing two snapshots, because processes come and go during a
run: Django closes a database connection after CONN_MAX_AGE (60 s) and opens a new one, so backends
end and start. A process that appears during the run counts from zero; one that ends counts up to its
last sample (at most 0.2 s of its time is missed).
"""

import os
import signal
import sys
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
INTERVAL = 0.2


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _is_backend(pid: str, database: str) -> bool:
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    # Backends are titled "postgres: 15/main: <user> <database> <client> <state>".
    return line.startswith(b"postgres:") and f" {database} ".encode() in line


def snapshot(master: str, database: str) -> dict[str, tuple[str, float]]:
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        stat = _stat(pid)
        if stat is None:
            continue
        parent, seconds = stat
        if pid == master or str(parent) == master:
            found[pid] = ("app", seconds)
        elif _is_backend(pid, database):
            found[pid] = ("db", seconds)
    return found


def main() -> None:
    master, database = sys.argv[1], sys.argv[2]
    stop = False

    def _stop(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    baseline = {pid: seconds for pid, (_, seconds) in snapshot(master, database).items()}
    last: dict[str, tuple[str, float]] = {}
    while True:
        for pid, value in snapshot(master, database).items():
            last[pid] = value
        if stop:
            break
        time.sleep(INTERVAL)
    totals = {"app": 0.0, "db": 0.0}
    for pid, (kind, seconds) in last.items():
        totals[kind] += seconds - baseline.get(pid, 0.0)
    print(f"{totals['app']:.3f} {totals['db']:.3f}", flush=True)


if __name__ == "__main__":
    main()
