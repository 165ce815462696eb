"""Fixtures for the tests against a real S3-compatible server (see tests/support/s3server.sh).

The tests run only when the S3 env vars are set (S3_ENDPOINT_URL, S3_ACCESS_KEY_ID,
S3_SECRET_ACCESS_KEY, S3_BUCKET); otherwise they skip with the reason, unless S3_REQUIRED=1
(CI sets it), then they fail. When the vars are set but the server does not answer, the tests
fail: a configured but broken server is an error.
"""

import os
import urllib.error
import urllib.parse
import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

S3_ENV_VARS = ("S3_ENDPOINT_URL", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_BUCKET")


@pytest.fixture(scope="session")
def s3_env():
    """The S3 connection settings from the environment; skips when they are not all set."""
    missing = [name for name in S3_ENV_VARS if not os.environ.get(name)]
    if missing:
        reason = (
            f"S3 server not configured ({', '.join(missing)} unset); "
            "run tests/support/s3server.sh start and export the vars it prints"
        )
        if os.environ.get("S3_REQUIRED") == "1":
            pytest.fail(f"S3_REQUIRED=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    return {
        "endpoint_url": os.environ["S3_ENDPOINT_URL"].rstrip("/"),
        "access_key": os.environ["S3_ACCESS_KEY_ID"],
        "secret_key": os.environ["S3_SECRET_ACCESS_KEY"],
        "bucket_name": os.environ["S3_BUCKET"],
        "region_name": os.environ.get("S3_REGION", "us-east-1"),
    }


@pytest.fixture(scope="session")
def s3_client(s3_env):
    return boto3.client(
        "s3",
        endpoint_url=s3_env["endpoint_url"],
        aws_access_key_id=s3_env["access_key"],
        aws_secret_access_key=s3_env["secret_key"],
        region_name=s3_env["region_name"],
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            connect_timeout=5,
            read_timeout=30,
            retries={"max_attempts": 2},
        ),
    )


@pytest.fixture(scope="session")
def s3_bucket(s3_env, s3_client):
    """Makes sure the test bucket exists (private) and returns its name."""
    bucket = s3_env["bucket_name"]
    try:
        s3_client.head_bucket(Bucket=bucket)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket", "NotFound"):
            raise
        s3_client.create_bucket(Bucket=bucket, ACL="private")
    return bucket


@pytest.fixture
def s3_cleanup(s3_client, s3_bucket):
    """Registers object keys to delete after the test; `track(key, now=True)` also deletes it right away."""
    keys = []

    def track(key, *, now=False):
        if now:
            s3_client.delete_object(Bucket=s3_bucket, Key=key)
        keys.append(key)
        return key

    yield track
    for key in keys:
        s3_client.delete_object(Bucket=s3_bucket, Key=key)


@pytest.fixture
def s3_storage_options(s3_env, s3_bucket):
    """The same S3Storage options as config/settings/base.py uses for photos."""
    return {
        "bucket_name": s3_bucket,
        "endpoint_url": s3_env["endpoint_url"],
        "access_key": s3_env["access_key"],
        "secret_key": s3_env["secret_key"],
        "region_name": "us-east-1",
        "signature_version": "s3v4",
        "addressing_style": "path",
        "default_acl": "private",
        "querystring_auth": True,
        "querystring_expire": 300,
        "file_overwrite": False,
    }


@pytest.fixture
def s3_storage(s3_storage_options):
    from storages.backends.s3 import S3Storage

    return S3Storage(**s3_storage_options)


@pytest.fixture(scope="session")
def http_get():
    """Plain HTTP GET without any proxy from the environment: returns (status, body)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(url):
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"not an http(s) URL: {url}")
        try:
            with opener.open(urllib.request.Request(url, method="GET"), timeout=15) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, exc.read()

    return get
