"""The photo pass reading the old bucket through its S3 endpoint (the real S3 server: tests/support/s3server.sh),
as `--photos-s3 ENDPOINT --bucket NAME` does with the keys in the usual AWS variables."""

import secrets

import pytest

from apps.challenges.models import Dip
from apps.moving_in.models import ImportedObject
from tests.s3.conftest import s3_client, s3_env  # noqa: F401 - fixtures

from .test_photos import assert_clean_upright

pytestmark = [pytest.mark.s3, pytest.mark.django_db]


@pytest.fixture
def old_bucket(s3_client, small_club):  # noqa: F811
    """A bucket of its own, filled like the original's dip_photos, emptied and removed afterwards."""
    name = f"koud-import-dip-photos-{secrets.token_hex(4)}"
    s3_client.create_bucket(Bucket=name, ACL="private")
    for key, content in small_club.photo_store.items():
        s3_client.put_object(Bucket=name, Key=key, Body=content)
    yield name
    for key in small_club.photo_store:
        s3_client.delete_object(Bucket=name, Key=key)
    s3_client.delete_bucket(Bucket=name)


def test_photos_come_from_the_bucket_over_s3(small_club, old_bucket, s3_env, run_import, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3_env["access_key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_env["secret_key"])
    monkeypatch.setenv("AWS_DEFAULT_REGION", s3_env["region_name"])
    endpoint = s3_env["endpoint_url"]
    dry = run_import(database_url=small_club.url, dry_run=True, photos_s3=endpoint, bucket=old_bucket)
    assert "Foto ontbreekt in de bucket: plons blijft zonder foto: 1" in dry
    out = run_import(database_url=small_club.url, photos_s3=endpoint, bucket=old_bucket)
    assert "Foto's: 4 gevonden, 2 geïmporteerd" in out
    with_photo = list(Dip.objects.exclude(photo=""))
    assert len(with_photo) == 2
    for dip in with_photo:
        assert_clean_upright(dip)
    statuses = sorted(ImportedObject.objects.exclude(photo_status="").values_list("photo_status", flat=True))
    assert statuses == ["broken", "done", "done", "missing"]
