"""A mechanism of ours switched off for an A/B (docs/performance.md, "Machinery kept and why"), the rest as ever.

    python bench/without.py sessions bench/page_cost.py --rounds 7        # a bench script, in this process
    BENCH_WITHOUT=backends gunicorn ... bench.without:application         # the app, for wrk

`sessions`: Django's database store instead of config/sessions.py. `backends`: Django's and allauth's own
backends instead of apps/accounts/backends.py (and sessions no longer renamed to ours). `sections`: every cached
section and kept value rendered or read anew (apps/core/page_sections.py); the whole page is still cached.
Several at once: `sessions,backends`.
"""

import os
import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402
from django.conf import settings  # noqa: E402

SWITCHES = ("sessions", "backends", "sections")


def switch_off(names: list[str]) -> None:
    unknown = set(names) - set(SWITCHES)
    if unknown:
        raise SystemExit(f"unknown: {sorted(unknown)}; choose from {SWITCHES}")
    django.setup()
    if "sessions" in names:
        settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    if "backends" in names:
        import config.sessions

        settings.AUTHENTICATION_BACKENDS = [
            "django.contrib.auth.backends.ModelBackend",
            "allauth.account.auth_backends.AuthenticationBackend",
        ]
        config.sessions.RENAMED = {}  # type: ignore[attr-defined]  # sessions keep Django's paths
    if "sections" in names:
        from apps.core import page_sections

        page_sections._cacheable = lambda context: None  # noqa: SLF001 - every section rendered
        page_sections._keys = lambda page, **parts: [None] * len(parts["chosen"])  # noqa: SLF001 - kept values read


if __name__ == "__main__":
    switch_off([name for name in sys.argv[1].split(",") if name])
    script, sys.argv = sys.argv[2], sys.argv[2:]
    runpy.run_path(script, run_name="__main__")
else:
    switch_off([name for name in os.environ.get("BENCH_WITHOUT", "").split(",") if name])
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
