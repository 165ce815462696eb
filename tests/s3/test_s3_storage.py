"""django-storages' S3Storage against a real S3-compatible server (Ceph RADOS Gateway on loopback).

Start the server with `tests/support/s3server.sh start` and export the vars it prints;
without them these tests skip.
"""

import struct
import time
import urllib.parse
import zlib

import pytest
from django.core.files.base import ContentFile

pytestmark = pytest.mark.s3

PHOTO_NAME = "42/20261121T101500.png"


def _png_bytes(width=2, height=2):
    """A small, valid RGB PNG (no Pillow needed)."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    # Each row: filter byte 0, then one RGB triple per pixel.
    raw = b"".join(b"\x00" + b"".join(bytes((60 * x, 90 * y, 200)) for x in range(width)) for y in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


PNG = _png_bytes()


def _with_query(url, **changes):
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    query.update(changes)
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


@pytest.fixture
def saved_photo(s3_storage, s3_cleanup):
    s3_cleanup(PHOTO_NAME, now=True)  # left over from an earlier, interrupted run
    name = s3_storage.save(PHOTO_NAME, ContentFile(PNG))
    s3_cleanup(name)
    return name


def test_save_and_read_back_byte_for_byte(s3_storage, saved_photo, s3_client, s3_bucket):
    assert saved_photo == PHOTO_NAME
    with s3_storage.open(saved_photo, "rb") as fh:
        assert fh.read() == PNG
    head = s3_client.head_object(Bucket=s3_bucket, Key=PHOTO_NAME)
    assert head["ContentLength"] == len(PNG)
    assert head["ContentType"] == "image/png"
    assert s3_storage.size(saved_photo) == len(PNG)


def test_file_overwrite_false_keeps_the_first_upload(s3_storage, saved_photo, s3_cleanup):
    other = s3_cleanup(s3_storage.save(PHOTO_NAME, ContentFile(b"not the same bytes")))
    assert other != PHOTO_NAME
    assert other.startswith("42/20261121T101500_") and other.endswith(".png")
    with s3_storage.open(PHOTO_NAME, "rb") as fh:
        assert fh.read() == PNG


def test_exists_and_delete(s3_storage, saved_photo):
    assert s3_storage.exists(saved_photo)
    assert not s3_storage.exists("42/no-such-photo.png")
    s3_storage.delete(saved_photo)
    assert not s3_storage.exists(saved_photo)
    # Deleting what is already gone is not an error.
    s3_storage.delete(saved_photo)


def test_object_acl_is_private(saved_photo, s3_client, s3_bucket):
    grants = s3_client.get_object_acl(Bucket=s3_bucket, Key=saved_photo)["Grants"]
    grantee_uris = {g["Grantee"].get("URI", "") for g in grants}
    assert not any(uri.endswith(("/AllUsers", "/AuthenticatedUsers")) for uri in grantee_uris)


def test_unsigned_get_is_refused(saved_photo, s3_env, s3_bucket, http_get):
    status, body = http_get(f"{s3_env['endpoint_url']}/{s3_bucket}/{saved_photo}")
    assert status == 403
    assert PNG not in body


def test_signed_url_returns_the_bytes(s3_storage, saved_photo, s3_env, s3_bucket, http_get):
    url = s3_storage.url(saved_photo)
    assert url.startswith(f"{s3_env['endpoint_url']}/{s3_bucket}/{saved_photo}?")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert query["X-Amz-Expires"] == "300"
    assert "X-Amz-Signature" in query
    assert "X-Amz-Expires=300" in url and "X-Amz-Signature=" in url
    status, body = http_get(url)
    assert status == 200
    assert body == PNG


def test_forged_signature_is_refused(s3_storage, saved_photo, http_get):
    url = s3_storage.url(saved_photo)
    signature = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))["X-Amz-Signature"]
    forged = signature[:-1] + ("0" if signature[-1] != "0" else "1")
    status, body = http_get(_with_query(url, **{"X-Amz-Signature": forged}))
    assert status == 403
    assert PNG not in body


def test_longer_expiry_than_signed_is_refused(s3_storage, saved_photo, http_get):
    url = s3_storage.url(saved_photo)
    status, body = http_get(_with_query(url, **{"X-Amz-Expires": "604800"}))
    assert status == 403
    assert PNG not in body


def test_signature_for_another_key_is_refused(s3_storage, saved_photo, s3_env, s3_bucket, http_get):
    url = s3_storage.url(saved_photo)
    parts = urllib.parse.urlsplit(url)
    other = urllib.parse.urlunsplit(parts._replace(path=f"/{s3_bucket}/43/20261121T101500.png"))
    status, _body = http_get(other)
    assert status == 403


def test_expired_signed_url_is_refused(s3_storage_options, saved_photo, http_get):
    from storages.backends.s3 import S3Storage

    short_lived = S3Storage(**{**s3_storage_options, "querystring_expire": 1})
    url = short_lived.url(saved_photo)
    assert "X-Amz-Expires=1&" in url or url.endswith("X-Amz-Expires=1")
    time.sleep(2.5)
    status, body = http_get(url)
    assert status == 403
    assert PNG not in body
