"""Small helpers that read settings from environment variables.

Every value is read through `_read`: `docker run --env-file` (unlike a shell or docker compose) keeps
quotes, so `DEFAULT_FROM_EMAIL="Club <noreply@club.example>"` arrived with its quotes and every mail was
refused (501 MAIL FROM). One pair of matching quotes around a whole value is dropped, whoever wrote it.
"""

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def unquote(value: str) -> str:
    """`"x"` or `'x'` becomes `x`; anything else stays as it is."""
    stripped = value.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in {'"', "'"}:
        return stripped[1:-1]
    return value


def _read(name: str) -> str | None:
    raw = os.environ.get(name)
    return None if raw is None else unquote(raw)


def env_str(name: str, default: str = "") -> str:
    raw = _read(name)
    return default if raw is None else raw


def env_bool(name: str, default: bool = False) -> bool:
    raw = _read(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean, got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = _read(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from exc


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = _read(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_secret(name: str) -> str:
    """A secret that production cannot run without: refuse a missing or placeholder value."""
    value = (_read(name) or "").strip()
    if len(value) < 32 or value.startswith("django-insecure") or value.lower() in {"changeme", "secret"}:
        raise ImproperlyConfigured(
            f"{name} must be set to a long random value in production "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    return value
