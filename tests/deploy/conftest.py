"""The compose stack, natively (tests/deploy/stack.py), started once for tests/deploy/test_stack.py: web
(gunicorn), worker and scheduler with compose.yaml's commands and environment on the test database, Redis
and a loopback SMTP server, behind Debian's caddy with deploy/caddy/Caddyfile and HTTPS from Caddy's local CA.

Without PostgreSQL, Redis or caddy the tests skip on a quick local run and fail with CI=true or
POSTGRES_REQUIRED=1 (make caddy installs it). The worker and the scheduler start only when their commands
exist (apps/operations); the tests that need them skip, saying so, until then.
"""

import os
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from tests.cluster.conftest import GUNICORN_TIMEOUT, _database_url, missing
from tests.mailbox import Inbox
from tests.support import cluster as parts

from . import stack

REDIS_URL = os.environ.get("DEPLOY_REDIS_URL", "redis://127.0.0.1:6379/6")
# Scaled down like tests/cluster/ (production: 30 s), so the slow-upload test outlives a worker's timeout
# in 20 s instead of 55; and fewer workers (2) than uploads (5).
GUNICORN_WORKERS = 2


@dataclass
class Stack:
    web: parts.Process
    worker: parts.Process | None
    scheduler: parts.Process | None
    caddy: parts.Process
    https_port: int
    http_port: int
    tls: ssl.SSLContext
    inbox: Inbox
    envs: dict[str, dict[str, str]]
    workdir: Path

    @property
    def media_root(self) -> Path:
        return self.workdir / "media"

    def browser(self) -> parts.Browser:
        return parts.Browser(port=self.https_port, tls=self.tls, host=stack.DOMAIN)


def command_exists(service: str) -> bool:
    """Whether the manage.py command compose.yaml runs for `service` exists on this branch."""
    from django.core.management import get_commands

    return stack.manage_command(service) in get_commands()


def _trust(ca_root: Path, *, caddy: parts.Process, port: int) -> ssl.SSLContext:
    """Caddy's local CA, once Caddy has made it and answers with a certificate it signed."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ca_root.exists():
            context = ssl.create_default_context(cafile=str(ca_root))
            try:
                probe = parts.Browser(port=port, tls=context, host=stack.DOMAIN, timeout=30)
                probe.get("/healthz")
                return context
            except (ssl.SSLError, OSError):
                pass
        if not caddy.running:
            break
        time.sleep(0.2)
    raise RuntimeError(f"Caddy gave no trusted certificate:\n{caddy.log.read_text()[-3000:]}")


@pytest.fixture(scope="package")
def compose_stack(django_db_setup, tmp_path_factory):
    from django.db import connection

    if connection.vendor != "postgresql":
        missing(f"the stack test needs PostgreSQL (DATABASE_URL); the database is {connection.vendor}")
    if stack.caddy_binary() is None:
        missing("caddy is missing (make caddy: apt-get install caddy)")
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).flushdb()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {REDIS_URL}: {error}")

    workdir = tmp_path_factory.mktemp("stack")
    for folder in ("media", "backups", "home"):
        (workdir / folder).mkdir()
    inbox = Inbox()
    smtp = Controller(inbox, hostname=parts.HOST, port=parts.free_port())
    smtp.start()
    env_file = stack.variables(smtp_port=smtp.port)
    https_port = parts.free_port()
    envs = {
        service: stack.app_environment(
            service,
            env_file=env_file,
            database_url=_database_url(connection.settings_dict),
            redis_url=REDIS_URL,
            workdir=workdir,
            https_port=https_port,
        )
        for service in ("web", "worker", "scheduler")
    }
    envs["web"].update(GUNICORN_TIMEOUT=str(GUNICORN_TIMEOUT), GUNICORN_WORKERS=str(GUNICORN_WORKERS))
    # The image runs collectstatic when it is built; production serves the hashed names from its manifest.
    subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=parts.REPO,
        env=envs["web"],
        check=True,
    )
    web = stack.app_process("web", env=envs["web"], workdir=workdir)
    worker = stack.app_process("worker", env=envs["worker"], workdir=workdir) if command_exists("worker") else None
    scheduler = (
        stack.app_process("scheduler", env=envs["scheduler"], workdir=workdir) if command_exists("scheduler") else None
    )
    caddy, http_port, ca_root = stack.caddy_process(
        env_file=env_file, upstream=f"{parts.HOST}:{web.port}", workdir=workdir, https_port=https_port
    )
    started: list[parts.Process] = []
    try:
        for process in (web, worker, scheduler, caddy):
            if process is not None:
                started.append(process.start())
        tls = _trust(ca_root, caddy=caddy, port=https_port)
        yield Stack(web, worker, scheduler, caddy, https_port, http_port, tls, inbox, envs, workdir)
    finally:
        for process in reversed(started):
            process.stop()
        smtp.stop()
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).flushdb()


@pytest.fixture
def running_stack(compose_stack, transactional_db):
    """The stack with web up, its inbox empty; transactional_db: the servers see what the test writes."""
    if not compose_stack.web.running:
        compose_stack.web.start()
    compose_stack.inbox.messages.clear()
    compose_stack.inbox.envelopes.clear()
    return compose_stack
