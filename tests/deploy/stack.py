"""The compose stack natively: the very commands and environment compose.yaml declares for web, worker and
scheduler, and Debian's caddy with the shipped deploy/caddy/Caddyfile, on this machine's PostgreSQL and
Redis. Nothing is repeated from compose.yaml; only what a container has and this machine has not is mapped,
and each mapping first checks that compose.yaml still says what it maps:

- the service hosts `postgres` and `redis` -> the test database and a Redis database on 127.0.0.1;
- the volumes (/app/media, /backups, /srv/media, /etc/caddy/errors) -> folders of the test;
- the ports (web's 0.0.0.0:8000, Caddy's 80 and 443) -> free ports on 127.0.0.1; the domain -> localhost,
  whose certificate comes from Caddy's own local CA (`local_certs`), trusted by the test's client;
- `python` and `gunicorn` -> this virtualenv's; the mail provider -> a loopback SMTP server.
"""

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import cluster as parts

from .env_file import REPO, compose, env_example, interpolate

DOMAIN = "localhost"
# Debian's caddy is 2.6; the compose image (caddy:2) names the same buffering differently since 2.7.
CADDY_26_NAMES = {"request_buffers 16MiB": "buffer_requests", "response_buffers 1MB": "buffer_responses"}


def caddy_binary() -> str | None:
    return shutil.which("caddy")


def caddy_version() -> tuple[int, int]:
    out = subprocess.run([caddy_binary(), "version"], capture_output=True, text=True, check=True).stdout  # noqa: S603
    major, minor = re.match(r"v?(\d+)\.(\d+)", out).groups()
    return int(major), int(minor)


def settings_module() -> str:
    """The image's DJANGO_SETTINGS_MODULE (an ENV line of the Dockerfile)."""
    return re.search(r"DJANGO_SETTINGS_MODULE=(\S+)", (REPO / "Dockerfile").read_text()).group(1)


def argv(command: list[str]) -> list[str]:
    """A container's command with this machine's Python."""
    if command[0] == "gunicorn":
        return [sys.executable, "-m", "gunicorn", *command[1:]]
    assert command[0] == "python", command
    return [sys.executable, *command[1:]]


def variables(*, smtp_port: int) -> dict[str, str]:
    """.env as an operator fills it in from .env.example: the must-set blanks, the rest as shipped."""
    values = env_example()
    values.update(
        KOUD_DOMAIN=DOMAIN,
        DJANGO_SECRET_KEY=secrets.token_hex(32),
        POSTGRES_PASSWORD=secrets.token_hex(12),
        # The mail provider: a real SMTP server on loopback, without TLS or an account.
        EMAIL_HOST=parts.HOST,
        EMAIL_PORT=str(smtp_port),
        EMAIL_USE_TLS="false",
    )
    return values


def _replace(value: str, pattern: str, replacement: str) -> str:
    assert re.search(pattern, value), f"compose.yaml changed: {value!r} no longer matches {pattern!r}"
    return re.sub(pattern, replacement, value)


def app_environment(
    service: str, *, env_file: dict[str, str], database_url: str, redis_url: str, workdir: Path, https_port: int
) -> dict[str, str]:
    declared = interpolate(compose()["services"][service]["environment"], env_file)
    env = {
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        # A home of its own: gunicorn's control socket would appear under it ($HOME/.gunicorn).
        "HOME": str(workdir / "home"),
        "DJANGO_SETTINGS_MODULE": settings_module(),
        **env_file,
        **{name: str(value) for name, value in declared.items()},
    }
    env["DATABASE_URL"] = _replace(env["DATABASE_URL"], r"^postgres://koud:[^@]+@postgres:5432/koud$", database_url)
    env["REDIS_URL"] = _replace(env["REDIS_URL"], r"^redis://redis:6379/0$", redis_url)
    env["MEDIA_ROOT"] = _replace(env["MEDIA_ROOT"], r"^/app/media$", str(workdir / "media"))
    env["BACKUP_DIR"] = _replace(env["BACKUP_DIR"], r"^/backups$", str(workdir / "backups"))
    env["SITE_URL"] = _replace(env["SITE_URL"], rf"^https://{DOMAIN}$", f"https://{DOMAIN}:{https_port}")
    if "GUNICORN_BIND" in env:
        env["GUNICORN_BIND"] = _replace(env["GUNICORN_BIND"], r"^0\.0\.0\.0:8000$", f"{parts.HOST}:{parts.free_port()}")
    return env


def manage_command(service: str, *, part: str = "command") -> str:
    """The manage.py command of a service's command (part="command") or health check (part="healthcheck")."""
    declared = compose()["services"][service]
    words = declared["command"] if part == "command" else declared["healthcheck"]["test"][1:]
    assert words[:2] == ["python", "manage.py"], words
    return words[2]


def app_process(service: str, *, env: dict[str, str], workdir: Path) -> parts.Process:
    port = int(env["GUNICORN_BIND"].rsplit(":", 1)[1]) if service == "web" else None
    return parts.Process(
        service, argv(compose()["services"][service]["command"]), env, workdir / f"{service}.log", port=port
    )


def health_check(service: str, *, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The service's compose health check, run natively (CMD form only)."""
    test = compose()["services"][service]["healthcheck"]["test"]
    assert test[0] == "CMD", test
    return subprocess.run(argv(test[1:]), cwd=REPO, env=env, capture_output=True, text=True, timeout=60)  # noqa: S603


def caddy_process(
    *, env_file: dict[str, str], upstream: str, workdir: Path, https_port: int
) -> tuple[parts.Process, int, Path]:
    """Caddy with the Caddyfile compose.yaml mounts. Returns the process, its plain-http port and its CA root."""
    proxy = compose()["services"]["proxy"]
    mounts = dict(volume.split(":")[:2] for volume in proxy["volumes"])
    sources = {target: source for source, target in mounts.items()}
    caddyfile = REPO / sources["/etc/caddy/Caddyfile"]
    text = caddyfile.read_text()
    if caddy_version() < (2, 7):
        for new, old in CADDY_26_NAMES.items():
            assert new in text, f"deploy/caddy/Caddyfile no longer has {new!r}"
            text = text.replace(new, old)
    root = workdir / "caddy"
    root.mkdir()
    (root / "Caddyfile").write_text(text)

    declared = interpolate(proxy["environment"], env_file)
    assert declared["KOUD_DOMAIN"] == DOMAIN
    http_port, admin_port = parts.free_port(), parts.free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(root),
        "XDG_DATA_HOME": str(root / "data"),  # certificates and the local CA
        "XDG_CONFIG_HOME": str(root / "config"),
        **{name: str(value) for name, value in declared.items()},
    }
    env["KOUD_UPSTREAM"] = _replace(env["KOUD_UPSTREAM"], r"^web:8000$", upstream)
    assert f"media:{env['KOUD_MEDIA_ROOT']}:ro" in proxy["volumes"]
    env["KOUD_MEDIA_ROOT"] = str(workdir / "media")
    env["KOUD_ERROR_PAGES"] = str(REPO / sources[env["KOUD_ERROR_PAGES"]])
    env["KOUD_CADDY_OPTIONS"] = "\n".join(
        [
            "local_certs",
            "skip_install_trust",
            f"default_bind {parts.HOST}",
            f"admin {parts.HOST}:{admin_port}",
            f"http_port {http_port}",
            f"https_port {https_port}",
        ]
    )
    command = [caddy_binary(), "run", "--config", str(root / "Caddyfile"), "--adapter", "caddyfile"]
    process = parts.Process("caddy", command, env, root / "caddy.log", port=https_port)
    ca_root = root / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    return process, http_port, ca_root
