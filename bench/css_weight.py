"""The gzipped CSS each page loads: every `<link rel="stylesheet">` of the rendered page, summed.

Run: `.venv/bin/python bench/css_weight.py` (after `make frontend`). It renders every screen of
tests/e2e/screens.py in a scratch test database, so the numbers are those of real pages with data.
Django's own admin is left out: its CSS is Django's, not ours.
"""

import gzip
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STYLESHEET = re.compile(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*rel="stylesheet"')


def stylesheets(html: str) -> list[str]:
    return [first or second for first, second in STYLESHEET.findall(html)]


def gzipped_bytes(url: str) -> int:
    from django.conf import settings
    from django.contrib.staticfiles import finders

    path = finders.find(url.removeprefix(settings.STATIC_URL))
    assert path, f"{url} is not a static file"
    return len(gzip.compress(Path(path).read_bytes(), compresslevel=9))


def measure() -> list[tuple[str, str, list[str], int]]:
    from django.test import Client

    from tests.e2e.screens import SCREENS

    rows = []
    for name, build in SCREENS.items():
        if name.startswith("django-admin"):
            continue
        visit = build()
        client = Client()
        if visit.user is not None:
            client.force_login(visit.user)
        html = client.get(visit.path, follow=True).content.decode()
        sheets = stylesheets(html)
        rows.append((name, visit.path, sheets, sum(gzipped_bytes(url) for url in sheets)))
    return rows


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ.pop("DATABASE_URL", None)  # a scratch in-memory SQLite, never a real database
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    print("| page | path | stylesheets | gzipped CSS (bytes) |")
    print("| --- | --- | --- | --- |")
    for name, path, sheets, size in measure():
        files = ", ".join(Path(url).name for url in sheets)
        print(f"| {name} | `{path}` | {files} | {size:,} |")


if __name__ == "__main__":
    main()
