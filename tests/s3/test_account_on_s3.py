"""Mijn account on a real S3 server: deleting the account removes the photo objects, undoing a dip
removes its photo, and the export is built from the bucket into the bucket and handed out by a presigned URL."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts.models import User
from apps.challenges.models import Challenge, Dip
from apps.challenges.services.cards import challenge_start
from apps.logbook.models import MemberExport
from config.settings.storage import export_storage_settings, photo_storage_settings
from tests.challenges.photo_samples import image_bytes
from tests.factories import DEFAULT_PASSWORD
from tests.mailbox import run_worker

pytestmark = [pytest.mark.s3, pytest.mark.django_db]


@pytest.fixture
def s3_photos(settings, s3_env, s3_bucket, monkeypatch, tmp_path):
    monkeypatch.setenv("PHOTO_STORAGE", "s3")
    monkeypatch.setenv("S3_ENDPOINT_URL", s3_env["endpoint_url"])
    monkeypatch.setenv("S3_BUCKET", s3_bucket)
    settings.STORAGES = {
        **settings.STORAGES,
        "photos": photo_storage_settings(tmp_path),
        "exports": export_storage_settings(tmp_path),
    }
    from django.core.files.storage import storages

    return storages["photos"]


def _dips_with_photos(client, member, count):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    client.force_login(member)
    for n in range(count):
        upload = SimpleUploadedFile(f"zee{n}.jpg", image_bytes("JPEG", size=(64, 48)), content_type="image/jpeg")
        assert client.post("/challenge/plons", {"photo": upload}).status_code == 201
    names = []
    for dip in Dip.objects.filter(user=member):
        names += [dip.photo.name, dip.thumbnail.name]
    return names


def test_deleting_the_account_removes_the_photo_objects(
    client, member, s3_photos, s3_cleanup, django_capture_on_commit_callbacks
):
    names = _dips_with_photos(client, member, 2)
    for name in names:
        s3_cleanup(name)  # should the test fail halfway, the bucket is still cleaned
    assert all(s3_photos.exists(name) for name in names)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/account/verwijderen", {"verwijderen-password": DEFAULT_PASSWORD})
    assert response.status_code == 302
    assert not User.objects.filter(pk=member.pk).exists()
    assert not any(s3_photos.exists(name) for name in names)


def test_undo_removes_the_photo_object(client, member, s3_photos, s3_cleanup, django_capture_on_commit_callbacks):
    names = _dips_with_photos(client, member, 1)
    for name in names:
        s3_cleanup(name)
    dip = Dip.objects.get(user=member)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/challenge/plons/{dip.pk}/ongedaan").status_code == 200
    assert not any(s3_photos.exists(name) for name in names)


def test_the_export_is_built_in_the_bucket_and_handed_out_by_a_presigned_url(
    client, member, s3_photos, s3_cleanup, http_get, django_capture_on_commit_callbacks
):
    names = _dips_with_photos(client, member, 2)
    for name in names:
        s3_cleanup(name)
    assert client.post("/account/export").status_code == 302
    run_worker()
    export = MemberExport.objects.get(user=member, status=MemberExport.Status.READY)
    s3_cleanup(f"exports/{export.file_name}")

    response = client.get("/account/export/download")
    assert response.status_code == 302
    url = response["Location"]
    assert f"/exports/{export.file_name}?" in url and "X-Amz-Expires=300" in url and "X-Amz-Signature=" in url
    assert "response-content-disposition=attachment" in url
    status, body = http_get(url)
    assert status == 200
    archive = zipfile.ZipFile(io.BytesIO(body))
    photos = sorted(name for name in archive.namelist() if name.startswith("fotos/"))
    assert len(photos) == 2 and all(archive.read(name)[:2] == b"\xff\xd8" for name in photos)
    # Without the signature the object is private.
    assert http_get(url.split("?")[0])[0] == 403

    # Another member gets nothing of it.
    from tests.factories import UserFactory

    client.force_login(UserFactory())
    assert client.get("/account/export/download")["Location"] == "/account#export"

    # A new request replaces it: the old object leaves the bucket.
    client.force_login(member)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/account/export")
    assert not s3_photos.exists(f"exports/{export.file_name}")
