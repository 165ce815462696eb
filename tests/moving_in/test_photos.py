"""The photo pass: through the app's own pipeline (upright, no EXIF or GPS, a thumbnail), private, resumable;
a missing or broken file leaves the dip without a photo and is reported."""

import io

import pytest
from PIL import Image

from apps.challenges.models import Dip, photo_storage
from apps.moving_in.models import ImportedObject

pytestmark = pytest.mark.django_db


def assert_clean_upright(dip: Dip) -> None:
    with dip.photo.open("rb") as f:
        image = Image.open(io.BytesIO(f.read()))
    # 64 x 32 stored on its side with "turn 90° clockwise": upright it is 32 wide, 64 high, red on top.
    assert image.size == (32, 64)
    assert not image.getexif() and "exif" not in image.info
    red, blue = image.convert("RGB").getpixel((16, 5)), image.convert("RGB").getpixel((16, 58))
    assert red[0] > 200 and red[2] < 60 and blue[2] > 200 and blue[0] < 60
    assert dip.thumbnail.name and dip.thumbnail.storage.exists(dip.thumbnail.name)


def test_photos_come_in_upright_without_exif_and_bad_files_are_reported(small_club, photo_dir, run_import):
    out = run_import(database_url=small_club.url, photos=str(photo_dir))
    with_photo = list(Dip.objects.exclude(photo=""))
    assert len(with_photo) == 2  # Anna's first dip and Carla's good one
    for dip in with_photo:
        assert_clean_upright(dip)
        # Private like every photo: the app's own photo storage, in the member's folder (served only by the
        # access-checked photo views, never from a public URL). Compared by what it is: a test before this one
        # may have made the storages anew.
        assert dip.photo.storage.deconstruct() == photo_storage().deconstruct()
        assert dip.photo.name.startswith(f"{dip.user_id}/")
    statuses = sorted(ImportedObject.objects.exclude(photo_status="").values_list("photo_status", flat=True))
    assert statuses == ["broken", "done", "done", "missing"]
    assert "Foto ontbreekt in de bucket: plons blijft zonder foto: 1" in out
    assert "Foto onleesbaar of geen afbeelding: plons blijft zonder foto: 1" in out
    assert "Foto's: 4 gevonden, 2 geïmporteerd" in out


def test_the_photo_pass_resumes_where_it_stopped(small_club, photo_dir, run_import):
    run_import(database_url=small_club.url)  # the data pass alone: every photo waits
    assert ImportedObject.objects.filter(photo_status="waiting").count() == 4
    run_import(only_photos=True, photos=str(photo_dir), photo_limit=1)
    assert ImportedObject.objects.filter(photo_status="waiting").count() == 3
    out = run_import(only_photos=True, photos=str(photo_dir))
    assert ImportedObject.objects.filter(photo_status="waiting").count() == 0
    assert "Foto's: 3 gevonden" in out
    assert Dip.objects.exclude(photo="").count() == 2
    again = run_import(only_photos=True, photos=str(photo_dir))
    assert "Foto's" not in again  # nothing waits any more


def test_a_key_cannot_leave_the_photo_folder(tmp_path):
    from apps.moving_in.photos import FolderPhotos

    (tmp_path / "bucket").mkdir()
    (tmp_path / "secret.jpg").write_bytes(b"x")
    assert FolderPhotos(tmp_path / "bucket").open("../secret.jpg") is None
