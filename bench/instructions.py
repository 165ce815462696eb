"""What a member page costs as rendered after its write, counted in instructions rather than seconds: for telling
two versions of the code apart on a machine whose speed swings (issue 37). The CPU time of bench/rendered_cost.py
stays the goal's measure; this is its steady companion for an A/B, not a replacement.

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://root@127.0.0.1:5432/koud_bench \\
    DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=127.0.0.1 python bench/instructions.py "/samen?na=afspraak" /club

Each URL runs in its own process under valgrind's callgrind (Debian's `valgrind`), which counts the instructions
this process executes: the same count for the same code and data, whatever else the machine does. Only the timed
visits of bench/rendered_cost.py's rounds are counted (visit, write, counted visit, take the write back): the
visit runs inside libc's qsort, called through ctypes, and callgrind collects inside qsort only. A full garbage
collection before each counted visit makes the collector's work the same in every run. Not counted: the kernel's
work (sockets to PostgreSQL and Redis) and the other processes (PostgreSQL, Redis), which the CPU time leaves out
too. Software paths stand in for some CPU features under valgrind (SHA-256 has no SHA-NI there), so a hash counts
for more than it costs.
"""

import argparse
import ctypes
import gc
import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
BARE = "/bench/kaal"


def _counted(visit) -> None:
    """`visit()` inside libc's qsort (two items, one comparison): what callgrind's --toggle-collect counts."""
    failed: list[BaseException] = []

    def compare(_a, _b) -> int:
        try:
            visit()
        except BaseException as error:  # noqa: BLE001 - a callback's exception stops at ctypes: raised below
            failed.append(error)
        return 0

    libc = ctypes.CDLL(None)
    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(compare)
    libc.qsort((ctypes.c_int * 2)(0, 1), 2, ctypes.sizeof(ctypes.c_int), callback)
    if failed:
        raise failed[0]


def _inside(url: str, rounds: int) -> None:
    """The rounds of one URL, run under callgrind."""
    sys.path.insert(0, str(BENCH))
    import rendered_cost  # noqa: PLC0415 - sets Django up, which the parent process never needs
    from django.test import Client, override_settings  # noqa: PLC0415

    rendered_cost.VISITOR.append(rendered_cost.typical_member())
    write = {page: write for page, write, _said in rendered_cost.PAGES}[url]
    with override_settings(ROOT_URLCONF="bench.bare_urls"):
        client = Client()
        client.force_login(rendered_cost.VISITOR[0])

        def visit():
            response = client.get(url, secure=True, HTTP_HOST="127.0.0.1")
            if response.status_code != 200:
                raise SystemExit(f"{url} antwoordt {response.status_code} in plaats van 200: geen meting")

        for _ in range(2):  # warm: templates, URL resolver, prepared statements
            visit()
        for _ in range(rounds):
            visit()
            undo = write()
            gc.collect()
            try:
                _counted(visit)
            finally:
                undo()


def _instructions(url: str, rounds: int) -> int:
    """Instructions per counted visit of `url`."""
    run = subprocess.run(  # noqa: S603 - our own argv
        [  # noqa: S607 - Debian's valgrind, on the PATH
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            "--collect-atstart=no",
            "--toggle-collect=*qsort*",
            sys.executable,
            __file__,
            "--inside",
            url,
            "--rounds",
            str(rounds),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dict orders, the same count
        check=True,
    )
    collected = re.search(r"Collected : (\d+)", run.stderr)
    if collected is None:
        raise SystemExit(f"callgrind telde niets voor {url}:\n{run.stderr[-2000:]}")
    return int(collected[1]) // rounds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("urls", nargs="*", help="pages of bench/rendered_cost.py (the bare page always)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        _inside(args.inside, args.rounds)
        return
    bare = _instructions(BARE, args.rounds)
    print("| URL (after its write) | instructions | × bare |")
    print("| --- | ---: | ---: |")
    print(f"| `{BARE}` | {bare:,} | 1.00 |")
    for url in args.urls:
        count = _instructions(url, args.rounds)
        print(f"| `{url}` | {count:,} | {count / bare:.2f} |")


if __name__ == "__main__":
    main()
