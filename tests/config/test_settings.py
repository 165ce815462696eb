"""Production settings: refuse a missing secret, and pass Django's deployment checklist cleanly."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

from tests.redis_states import TEST_REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.production", **(env_extra or {})})
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = run_manage("check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_refuses_the_development_key():
    result = run_manage("check", env_extra={"DJANGO_SECRET_KEY": "django-insecure-local-development-only-xxxxxxxxxxxx"})
    assert result.returncode != 0


def test_check_deploy_is_clean_with_production_settings():
    keys = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "MFA_ENCRYPTION_KEY": secrets.token_hex(32)}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env_extra=keys)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_without_an_mfa_key_production_runs_and_check_deploy_says_why_to_set_one():
    secret = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}
    assert run_manage("check", env_extra=secret).returncode == 0
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env_extra=secret)
    assert result.returncode != 0 and "koud.W001" in result.stderr + result.stdout
    assert "Zet MFA_ENCRYPTION_KEY in het env-bestand" in result.stderr + result.stdout


def test_production_refuses_a_weak_mfa_key():
    keys = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "MFA_ENCRYPTION_KEY": "kort"}
    result = run_manage("check", env_extra=keys)
    assert result.returncode != 0 and "MFA_ENCRYPTION_KEY must be set to a long random value" in result.stderr


def test_with_redis_the_cache_is_shared_by_every_container_and_sessions_stay_in_the_database():
    """REDIS_URL makes the rate-limit counters and cached pages live in Redis (CI's machine runs one);
    sessions stay in the database, which a Redis outage cannot lose or bring back (config/settings/caches.py)."""
    script = (
        "from django.conf import settings; from django.core.cache import cache, caches; import uuid;"
        "key = 'koud-test-' + uuid.uuid4().hex; cache.set(key, 'gedeeld', 30);"
        "print(settings.SESSION_ENGINE, type(caches['default']).__name__, cache.get(key));"
        "cache.delete(key)"
    )
    result = run_manage(
        "shell",
        "-c",
        script,
        env_extra={"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "REDIS_URL": TEST_REDIS_URL},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == [
        "config.sessions",
        "RedisCache",
        "gedeeld",
    ]
