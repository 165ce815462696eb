"""The app's own photo path on a real S3 server: register a dip with a photo, see it through a
signed URL as its owner or an admin, and watch the objects go when the challenge is stopped."""

import urllib.error
import urllib.request

import pytest

from apps.challenges.models import Challenge
from apps.challenges.services.cards import challenge_start
from config.settings.storage import photo_storage_settings
from tests.challenges.photo_samples import image_bytes

pytestmark = [pytest.mark.s3, pytest.mark.django_db]


@pytest.fixture
def s3_photos(settings, s3_env, s3_bucket, monkeypatch, tmp_path):
    monkeypatch.setenv("PHOTO_STORAGE", "s3")
    monkeypatch.setenv("S3_ENDPOINT_URL", s3_env["endpoint_url"])
    monkeypatch.setenv("S3_BUCKET", s3_bucket)
    settings.STORAGES = {**settings.STORAGES, "photos": photo_storage_settings(tmp_path)}
    from django.core.files.storage import storages

    return storages["photos"]


def test_dip_photo_round_trip_on_s3(
    client, member, other_member, admin_user, s3_photos, django_capture_on_commit_callbacks
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    assert s3_photos.bucket_name and s3_photos.querystring_auth
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    client.force_login(member)
    upload = SimpleUploadedFile("zee.jpg", image_bytes("JPEG", size=(320, 240)), content_type="image/jpeg")
    data = client.post("/challenge/plons", {"photo": upload}).json()
    from apps.challenges.models import Dip

    dip = Dip.objects.get(pk=data["dip"]["id"])
    assert dip.photo.name.startswith(f"{member.pk}/") and s3_photos.exists(dip.photo.name)

    # Unsigned, the object is refused by the store itself.
    plain = f"{s3_photos.endpoint_url}/{s3_photos.bucket_name}/{dip.photo.name}"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(plain, timeout=10)  # noqa: S310 - loopback test server
    assert refused.value.code == 403

    # The owner is sent to a short-lived signed URL, which serves the JPEG.
    response = client.get(data["dip"]["photoUrl"])
    assert response.status_code == 302 and response["Cache-Control"] == "private, no-store"
    signed = response["Location"]
    assert "X-Amz-Signature=" in signed and "X-Amz-Expires=300" in signed
    with urllib.request.urlopen(signed, timeout=10) as fetched:  # noqa: S310 - loopback test server
        assert fetched.read()[:2] == b"\xff\xd8"

    client.force_login(other_member)
    assert client.get(data["dip"]["photoUrl"]).status_code == 404
    client.force_login(admin_user)
    assert client.get(data["dip"]["thumbnailUrl"]).status_code == 302

    client.force_login(member)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/challenge/stoppen", {"user_challenge_id": dip.user_challenge_id})
    assert not s3_photos.exists(dip.photo.name) and not s3_photos.exists(dip.thumbnail.name)
