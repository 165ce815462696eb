"""The app as config.wsgi serves it, for `make bench` only: a request with the header `X-Bench-After: <url>` first
moves in the page cache what that URL's write moved (recorded by bench/rendered_load.py into the file named by
BENCH_RENDERED_MOVES), so it is the first visit after that write. Any other request is passed on untouched."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from django.db import transaction  # noqa: E402

from apps.core import page_cache, page_versions  # noqa: E402
from config import wsgi  # noqa: E402

MOVES = json.loads(Path(os.environ["BENCH_RENDERED_MOVES"]).read_text())["moves"]


def application(environ, start_response):
    moves = MOVES.get(environ.get("HTTP_X_BENCH_AFTER", ""))
    if moves:
        if moves["members"]:
            with transaction.atomic():
                page_cache.pages_changed(page_cache.MEMBER, user_ids=moves["members"])
        if moves["versions"]:
            page_versions.bump(*moves["versions"])  # what pages_changed does after the commit
    return wsgi.application(environ, start_response)
