"""The stamp card's photo sent after its dip: the tap is registered at once (no photo), the photo goes to
`POST /challenge/plons/<id>` with `photo_after_tap=1` when the phone has shrunk it (dip_photo_add)."""

import io
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from apps.accounts.access import member_mark
from apps.challenges.models import Challenge, Dip, photo_storage
from apps.challenges.photos import MESSAGE_NOT_AN_IMAGE, MESSAGE_UPLOAD_RATE
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.challenges.views.dip_edit import MESSAGE_PHOTO_ADDED, MESSAGE_PHOTO_KEPT
from tests.challenges.photo_samples import exif_with_gps_and_rotation, image_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_photos_of_an_earlier_member(member):
    """SQLite hands a rolled-back member's id out again: her photo folder is emptied, as the cache is."""
    storage = photo_storage()
    if storage.exists(str(member.pk)):
        for name in storage.listdir(str(member.pk))[1]:
            storage.delete(f"{member.pk}/{name}")


@pytest.fixture
def card(member):
    return challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)


def photo_after(client, dip_id, *, data: bytes | None = None, share: str | None = None, **extra):
    fields: dict = {"photo_after_tap": "1"}
    if data is not None:
        fields["photo"] = SimpleUploadedFile("IMG_2041.jpg", data, content_type="image/jpeg")
    if share is not None:
        fields["share_photo"] = share
    return client.post(f"/challenge/plons/{dip_id}", fields, **extra)


def stored_files(member) -> list[str]:
    storage = photo_storage()
    if not storage.exists(str(member.pk)):
        return []
    return sorted(storage.listdir(str(member.pk))[1])


def test_the_photo_joins_its_dip_and_leaves_the_details_as_they_are(member_client, member, card):
    dip = dip_register(user=member).dip  # the tap, without its photo
    Dip.objects.filter(pk=dip.pk).update(spot="Pier", water_temperature=Decimal("6.5"))
    photo = image_bytes("JPEG", size=(80, 40), exif=exif_with_gps_and_rotation())
    response = photo_after(member_client, dip.pk, data=photo, share="1")
    assert response.status_code == 200
    body = response.json()
    assert body["message"] == MESSAGE_PHOTO_ADDED
    assert body["dip"]["photoUrl"] == f"/foto/{dip.pk}" and body["dip"]["thumbnailUrl"] == f"/foto/{dip.pk}/klein"
    assert body["dip"]["sharePhoto"] is True and body["dip"]["spot"] == "Pier"
    dip.refresh_from_db()
    assert (dip.spot, dip.water_temperature, dip.share_photo) == ("Pier", Decimal("6.5"), True)
    # The pipeline's: re-encoded upright without metadata, a thumbnail, in the private photo storage.
    with photo_storage().open(dip.photo.name) as handle:
        stored = Image.open(io.BytesIO(handle.read()))
        assert stored.size == (40, 80) and not stored.getexif()
    assert sorted(stored_files(member)) == sorted(name.split("/")[-1] for name in (dip.photo.name, dip.thumbnail.name))
    assert member_client.get(f"/foto/{dip.pk}").status_code == 200


def test_share_stays_off_unless_ticked(member_client, member, card):
    dip = dip_register(user=member).dip
    assert photo_after(member_client, dip.pk, data=image_bytes()).json()["dip"]["sharePhoto"] is False
    dip.refresh_from_db()
    assert dip.photo and not dip.share_photo


def test_a_resend_keeps_the_photo_there_and_leaves_no_file_behind(member_client, member, card):
    dip = dip_register(user=member).dip
    assert photo_after(member_client, dip.pk, data=image_bytes(color=(1, 2, 3))).status_code == 200
    dip.refresh_from_db()
    first = dip.photo.name
    files = stored_files(member)
    # The same photo again (its answer was lost), or one set meanwhile through "Details aanpassen": kept.
    response = photo_after(member_client, dip.pk, data=image_bytes(color=(200, 2, 3)), share="1")
    assert response.status_code == 200 and response.json()["message"] == MESSAGE_PHOTO_KEPT
    dip.refresh_from_db()
    assert dip.photo.name == first and not dip.share_photo
    assert stored_files(member) == files


def test_a_file_that_is_no_photo_is_refused_in_dutch_and_the_dip_stays(member_client, member, card):
    dip = dip_register(user=member).dip
    response = photo_after(member_client, dip.pk, data=b"geen foto")
    assert response.status_code == 400
    assert response.json() == {"error": MESSAGE_NOT_AN_IMAGE, "code": "photo_not_an_image"}
    dip.refresh_from_db()
    assert not dip.photo and Dip.objects.filter(pk=dip.pk).exists()
    assert stored_files(member) == []


def test_without_a_photo_it_is_a_bad_request_and_nothing_changes(member_client, member, card):
    dip = dip_register(user=member).dip
    Dip.objects.filter(pk=dip.pk).update(spot="Pier")
    response = photo_after(member_client, dip.pk)
    assert response.status_code == 400 and response.json()["code"] == "bad_request"
    dip.refresh_from_db()
    assert dip.spot == "Pier"  # not read as an edit that empties the details


def test_a_body_over_the_limit_is_refused_before_it_is_read(member_client, member, card, settings):
    settings.PHOTO_MAX_BYTES = 1024
    dip = dip_register(user=member).dip
    response = photo_after(member_client, dip.pk, data=b"x" * (200 * 1024))
    assert response.status_code == 413 and response.json()["code"] == "photo_too_large"
    dip.refresh_from_db()
    assert not dip.photo


def test_the_photo_counts_in_the_members_upload_budget(member_client, member, card, settings):
    settings.PHOTO_UPLOADS_PER_WINDOW = 1
    first, second = dip_register(user=member).dip, dip_register(user=member).dip
    assert photo_after(member_client, first.pk, data=image_bytes()).status_code == 200
    response = photo_after(member_client, second.pk, data=image_bytes())
    assert response.status_code == 429 and response.json()["error"] == MESSAGE_UPLOAD_RATE
    second.refresh_from_db()
    assert not second.photo


def test_someone_elses_dip_or_an_undone_one_is_a_404(client, member, other_member, card):
    dip = dip_register(user=member).dip
    client.force_login(other_member)
    assert photo_after(client, dip.pk, data=image_bytes()).status_code == 404
    assert photo_after(client, 99999999, data=image_bytes()).json()["code"] == "dip_unknown"
    dip.refresh_from_db()
    assert not dip.photo
    assert stored_files(other_member) == []


def test_a_photo_queued_by_another_member_on_this_phone_waits_for_them(client, member, other_member, card):
    dip = dip_register(user=member).dip
    client.force_login(other_member)
    response = photo_after(client, dip.pk, data=image_bytes(), HTTP_X_KOUD_MEMBER=member_mark(member.pk))
    assert response.status_code == 409 and response.json()["code"] == "other_member"
    client.force_login(member)
    response = photo_after(client, dip.pk, data=image_bytes(), HTTP_X_KOUD_MEMBER=member_mark(member.pk))
    assert response.status_code == 200


def test_the_photo_needs_a_csrf_token(member, card):
    dip = dip_register(user=member).dip
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    assert photo_after(client, dip.pk, data=image_bytes()).status_code == 403
    dip.refresh_from_db()
    assert not dip.photo


def test_a_dip_queued_by_another_member_on_this_phone_waits_for_them(client, member, other_member, card):
    client.force_login(other_member)
    response = client.post("/challenge/plons", HTTP_X_KOUD_MEMBER=member_mark(member.pk))
    assert response.status_code == 409 and response.json()["code"] == "other_member"
    assert not Dip.objects.filter(user__in=[member, other_member]).exists()
