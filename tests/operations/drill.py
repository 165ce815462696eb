"""What the backup tests share: the environment a site runs with, `manage.py` in a subprocess, gunicorn on a
given port, a database of its own, and real photos made by Pillow."""

import io
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import psycopg
from PIL import Image
from psycopg import sql

from tests.support import cluster as parts

REPO = parts.REPO


def database_url(settings_dict: dict, *, name: str | None = None) -> str:
    credentials = quote(settings_dict["USER"] or "")
    if settings_dict.get("PASSWORD"):
        credentials += ":" + quote(settings_dict["PASSWORD"])
    host = settings_dict["HOST"] or "127.0.0.1"
    return f"postgres://{credentials}@{host}:{settings_dict['PORT'] or 5432}/{name or settings_dict['NAME']}"


def database_recreate(settings_dict: dict, name: str, *, create: bool = True) -> None:
    """Drop the database `name` (and, with `create`, make it again, empty) on the test database's server."""
    url = database_url(settings_dict, name="postgres")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if create:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def site_env(**values: str) -> dict[str, str]:
    """The environment of a production container: our settings only, nothing inherited from the tests."""
    ours = ("DJANGO_", "S3_", "PHOTO_", "REDIS_", "VAPID_", "MEDIA_", "BACKUP_", "DATABASE_", "EXPORT_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain http on loopback: the proxy would terminate TLS in production.
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "PHOTO_STORAGE": "local",
        "LOG_LEVEL": "WARNING",
        "GUNICORN_WORKERS": "1",
        # Each tap its own dip: the drill reads the dip ids a restore hands out again, which one swim, one stamp
        # would fold into the morning's first dip.
        "DIP_SAME_SWIM_HOURS": "0",
        **values,
    }


def manage(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    if check and done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def web(name: str, *, env: dict[str, str], port: int, workdir: Path) -> parts.Process:
    """gunicorn as the web container runs it, on `port` (the same address before and after a restore: the
    cached events page varies with the host it was asked at)."""
    env = {**env, "GUNICORN_BIND": f"{parts.HOST}:{port}", "GUNICORN_ACCESSLOG": str(workdir / f"{name}.access.log")}
    argv = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi:application"]
    return parts.Process(name, argv, env, workdir / f"{name}.log", port=port)


def jpeg(seed: int, size: tuple[int, int] = (640, 480)) -> bytes:
    """A real JPEG: noise (different per seed) over a gradient, as a dark photo of a lake compresses."""
    noise = Image.effect_noise(size, 40 + seed).convert("RGB")
    gradient = Image.linear_gradient("L").resize(size).convert("RGB")
    out = io.BytesIO()
    Image.blend(noise, gradient, 0.5).save(out, format="JPEG", quality=85)
    return out.getvalue()


def png(color: tuple[int, int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (64, 64), color).save(out, format="PNG")
    return out.getvalue()
