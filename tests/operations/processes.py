"""The long-running commands in their own processes, on the test database (PostgreSQL): as production runs them."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection


def process_env(**extra: str) -> dict[str, str]:
    db = connection.settings_dict
    return os.environ | {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_CONN_MAX_AGE": "0",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "SITE_URL": "https://koudwater.example",
        "REDIS_URL": "",
        **extra,
    }


def start(*argv: str, log: Path, **extra: str) -> subprocess.Popen:
    handle = open(log, "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        [sys.executable, "manage.py", *argv],
        cwd=settings.BASE_DIR,
        env=process_env(**extra),
        stdout=handle,
        stderr=subprocess.STDOUT,
    )


def stop(process: subprocess.Popen) -> int:
    """SIGTERM, as Docker stops a container; the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
        raise


def wait_for(check, *, what: str, process: subprocess.Popen | None = None, log: Path | None = None, timeout=120):
    """Wait for a state (never for a time): fails when the process ends first or after a generous timeout."""
    deadline = time.monotonic() + timeout
    while not check():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {log.read_text() if log else ''}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {log.read_text() if log else ''}"
        time.sleep(0.05)
