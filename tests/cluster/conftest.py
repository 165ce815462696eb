"""Two of everything, on loopback: two gunicorn instances (production settings) and two `manage.py worker`
processes sharing the test database (PostgreSQL), Redis and the S3 server, with Debian's nginx and the
shipped deploy/nginx/koud.conf balancing over both instances, and a real SMTP server (aiosmtpd).

Started once for this folder (about 10 s), for the tests marked `cluster`. They need PostgreSQL,
Redis, nginx and, for the photos, the S3 server (tests/support/s3server.sh; without its S3_* variables
the instances share a local photo folder instead). A missing piece skips them on a quick local run and
fails them when CI=true or POSTGRES_REQUIRED=1 (CI sets both).

The tests write their data from this process with `transactional_db`, so the servers see it.
"""

import os
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from aiosmtpd.controller import Controller

from tests.mailbox import Inbox
from tests.support import cluster as parts

REDIS_URL = os.environ.get("CLUSTER_REDIS_URL", "redis://127.0.0.1:6379/5")
GUNICORN_WORKERS = 2
# Scaled down from production's 30 s (see test_slow_uploads.py): a request that holds a worker longer dies.
GUNICORN_TIMEOUT = 10
S3_ENV_VARS = ("S3_ENDPOINT_URL", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_BUCKET")


def missing(reason: str) -> None:
    """Skip on a quick local run; fail in CI, where every piece must be there."""
    if os.environ.get("CI") == "true" or os.environ.get("POSTGRES_REQUIRED") == "1":
        pytest.fail(f"CI=true or POSTGRES_REQUIRED=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@dataclass
class Cluster:
    nginx: parts.Process
    instances: list[parts.Process]
    workers: list[parts.Process]
    inbox: Inbox
    env: dict[str, str]
    workdir: Path

    @property
    def port(self) -> int:
        return self.nginx.port

    def browser(self, instance: parts.Process | None = None) -> parts.Browser:
        """A browser through nginx, or straight to one instance."""
        return parts.Browser(port=(instance or self.nginx).port)

    def upstream(self, instance: parts.Process) -> str:
        return f"{parts.HOST}:{instance.port}"

    def restart(self, instance: parts.Process) -> None:
        if not instance.running:
            instance.start()


def _database_url(settings_dict: dict) -> str:
    credentials = quote(settings_dict["USER"] or "")
    if settings_dict.get("PASSWORD"):
        credentials += ":" + quote(settings_dict["PASSWORD"])
    host = settings_dict["HOST"] or "127.0.0.1"
    return f"postgres://{credentials}@{host}:{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}"


def _photo_storage_env(workdir: Path) -> dict[str, str]:
    if all(os.environ.get(name) for name in S3_ENV_VARS):
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError

        client = boto3.client(
            "s3",
            endpoint_url=os.environ["S3_ENDPOINT_URL"],
            aws_access_key_id=os.environ["S3_ACCESS_KEY_ID"],
            aws_secret_access_key=os.environ["S3_SECRET_ACCESS_KEY"],
            region_name=os.environ.get("S3_REGION", "us-east-1"),
        )
        try:
            try:
                client.head_bucket(Bucket=os.environ["S3_BUCKET"])
            except ClientError:
                client.create_bucket(Bucket=os.environ["S3_BUCKET"], ACL="private")
        except (BotoCoreError, ClientError) as error:
            pytest.fail(f"the S3 server of S3_ENDPOINT_URL does not answer: {error}", pytrace=False)
        s3 = {name: os.environ[name] for name in (*S3_ENV_VARS, "S3_REGION") if name in os.environ}
        return {"PHOTO_STORAGE": "s3", **s3}
    if os.environ.get("S3_REQUIRED") == "1":
        pytest.fail("S3_REQUIRED=1 but the S3_* variables are unset (tests/support/s3server.sh start)", pytrace=False)
    return {"PHOTO_STORAGE": "local"}  # one folder both instances write to, as a shared volume would be


# Package scope: the servers stop after the last test of this folder, before other tests' transactional
# writes (queued mails among them) could reach these workers.
@pytest.fixture(scope="package")
def cluster(django_db_setup, tmp_path_factory):
    from django.db import connection

    if connection.vendor != "postgresql":
        missing(f"the two-instance tests need PostgreSQL (DATABASE_URL); the database is {connection.vendor}")
    if parts.nginx_binary() is None:
        missing("nginx is missing (make nginx: apt-get install nginx-light)")
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).flushdb()  # pages of an earlier run must not answer
    except redis.RedisError as error:
        missing(f"Redis does not answer at {REDIS_URL}: {error}")

    workdir = tmp_path_factory.mktemp("cluster")
    media_root = workdir / "media"
    media_root.mkdir()
    inbox = Inbox()
    smtp = Controller(inbox, hostname=parts.HOST, port=parts.free_port())
    smtp.start()
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith(("DJANGO_", "S3_", "PHOTO_"))},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain http on loopback: nginx would terminate TLS in production.
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": _database_url(connection.settings_dict),
        "REDIS_URL": REDIS_URL,
        "TRUSTED_PROXY_COUNT": "1",
        "MEDIA_ROOT": str(media_root),
        **_photo_storage_env(workdir),
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.HOST,
        "EMAIL_PORT": str(smtp.port),
        "EMAIL_USE_TLS": "false",
        "EMAIL_HOST_USER": "",
        "EMAIL_HOST_PASSWORD": "",
        "EMAIL_TIMEOUT": "10",
        "GUNICORN_WORKERS": str(GUNICORN_WORKERS),
        "GUNICORN_TIMEOUT": str(GUNICORN_TIMEOUT),
        "LOG_LEVEL": "WARNING",
        # Each tap its own dip: these tests count taps across instances, which one swim, one stamp would fold into
        # the first dip of the morning (tests/challenges/test_same_swim*.py hold that rule).
        "DIP_SAME_SWIM_HOURS": "0",
    }
    proxy_port = parts.free_port()
    env["SITE_URL"] = f"http://{parts.HOST}:{proxy_port}"
    # Production serves hashed static files from the manifest collectstatic writes (under a second).
    subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=parts.REPO, env=env, check=True
    )

    instances = [parts.gunicorn(name, env=env, workdir=workdir) for name in ("web-a", "web-b")]
    workers = [parts.worker(name, env=env, workdir=workdir) for name in ("worker-a", "worker-b")]
    proxy = parts.nginx(
        upstreams=[f"{parts.HOST}:{i.port}" for i in instances], workdir=workdir, media_root=media_root, port=proxy_port
    )
    started: list[parts.Process] = []
    try:
        for process in [*instances, *workers, proxy]:
            started.append(process.start())
        yield Cluster(nginx=proxy, instances=instances, workers=workers, inbox=inbox, env=env, workdir=workdir)
    finally:
        for process in reversed(started):
            process.stop()
        smtp.stop()
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).flushdb()


@pytest.fixture
def running_cluster(cluster, transactional_db):
    """The cluster with every instance up (a test may have killed one), its inbox empty, Redis empty.
    transactional_db: the servers see what the test writes, and the tables are emptied after it."""
    import redis

    for instance in cluster.instances:
        cluster.restart(instance)
    cluster.inbox.messages.clear()
    cluster.inbox.envelopes.clear()
    redis.Redis.from_url(REDIS_URL, socket_timeout=2).flushdb()
    return cluster
