import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from apps.challenges.photos import DRAFT_SIDE, MAX_SIDE, THUMB_SIDE, PhotoError, photo_process
from tests.challenges.photo_samples import exif_with_gps_and_rotation, image_bytes


def upload(data: bytes, name="foto.jpg", content_type="image/jpeg"):
    return SimpleUploadedFile(name, data, content_type=content_type)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_accepted_formats_are_re_encoded_as_jpeg(fmt):
    result = photo_process(upload(image_bytes(fmt)))
    assert Image.open(io.BytesIO(result.full)).format == "JPEG"
    assert Image.open(io.BytesIO(result.thumbnail)).format == "JPEG"


def test_heic_is_accepted():
    pillow_heif = pytest.importorskip("pillow_heif")
    heif = pillow_heif.from_pillow(Image.new("RGB", (40, 30), (10, 20, 30)))
    out = io.BytesIO()
    heif.save(out, quality=80)
    result = photo_process(upload(out.getvalue(), "foto.heic", "image/heic"))
    assert Image.open(io.BytesIO(result.full)).size == (40, 30)


def test_exif_orientation_is_applied_and_all_metadata_is_stripped():
    original = image_bytes("JPEG", size=(80, 40), exif=exif_with_gps_and_rotation())
    assert Image.open(io.BytesIO(original)).getexif().get_ifd(0x8825)  # the sample really carries GPS
    result = photo_process(upload(original))
    stored = Image.open(io.BytesIO(result.full))
    assert stored.size == (40, 80)  # rotated upright
    assert not stored.getexif() and "exif" not in stored.info
    assert b"SnoopCam" not in result.full and b"SnoopCam" not in result.thumbnail


@pytest.mark.parametrize(
    ("fmt", "size", "stored"),
    [
        ("PNG", (3000, 2000), (2048, 1365)),
        ("JPEG", (3264, 2448), (2048, 1536)),  # 8 MP: half scale would be 1632 px, so decoded whole
        ("JPEG", (4000, 3000), (2000, 1500)),  # a 12 MP phone photo: decoded at half scale, kept so
        ("JPEG", (8000, 6000), (2000, 1500)),  # 48 MP: decoded at a quarter
    ],
)
def test_big_photos_are_capped_and_thumbnails_are_small(fmt, size, stored):
    result = photo_process(upload(image_bytes(fmt, size=size)))
    full = Image.open(io.BytesIO(result.full))
    assert full.size == stored
    assert DRAFT_SIDE <= max(full.size) <= MAX_SIDE
    assert max(Image.open(io.BytesIO(result.thumbnail)).size) == THUMB_SIDE


def _transparent(mode: str) -> Image.Image:
    if mode == "P":  # a palette whose colour 0 is see-through
        image = Image.new("P", (10, 10), 0)
        image.info["transparency"] = 0
        return image
    return Image.new(mode, (10, 10), (0, 0) if mode == "LA" else (0, 0, 0, 0))


@pytest.mark.parametrize("mode", ["RGBA", "LA", "P"])
def test_transparent_png_gets_a_white_background(mode):
    out = io.BytesIO()
    _transparent(mode).save(out, format="PNG")
    assert Image.open(io.BytesIO(out.getvalue())).mode == mode
    result = photo_process(upload(out.getvalue(), "x.png", "image/png"))
    assert Image.open(io.BytesIO(result.full)).convert("RGB").getpixel((5, 5)) == (255, 255, 255)


def test_a_transparent_photo_is_put_on_white_and_still_turned_upright():
    photo = Image.new("RGBA", (200, 100), (0, 0, 0, 0))
    photo.paste((200, 0, 0, 255), (0, 0, 100, 100))  # left half opaque red, right half transparent
    photo.paste((0, 0, 0, 128), (100, 0, 200, 10))  # a strip of half-transparent black
    out = io.BytesIO()
    photo.save(out, format="PNG", exif=exif_with_gps_and_rotation())
    stored = Image.open(io.BytesIO(photo_process(upload(out.getvalue(), "x.png", "image/png")).full))
    assert stored.size == (100, 200)  # rotated 90° clockwise: the left half is now on top
    red, white, grey = stored.getpixel((50, 50)), stored.getpixel((50, 150)), stored.getpixel((95, 150))
    assert red[0] > 180 and red[1] < 40 and red[2] < 40
    assert min(white) > 245
    assert all(110 < channel < 145 for channel in grey)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"%PDF-1.4 not a photo at all", "geen foto"),
        (b"", "geen foto"),
        (b"GIF89a" + b"\x00" * 100, "geen foto"),
        (image_bytes("JPEG", size=(400, 300))[:600], "beschadigd"),
        (image_bytes("PNG", size=(400, 300))[:200], "beschadigd"),
    ],
    ids=["pdf", "empty", "gif-header", "truncated-jpeg", "truncated-png"],
)
def test_non_images_and_damaged_files_are_refused_in_dutch(data, message):
    with pytest.raises(PhotoError, match=message):
        photo_process(upload(data, "foto.jpg"))


def test_a_gif_is_not_a_photo():
    with pytest.raises(PhotoError, match="geen foto"):
        photo_process(upload(image_bytes("GIF"), "x.gif", "image/gif"))


def test_decompression_bomb_is_refused():
    # A tiny PNG that claims 20000 x 20000 pixels.
    out = io.BytesIO()
    Image.new("1", (20000, 20000)).save(out, format="PNG")
    assert len(out.getvalue()) < 200_000
    with pytest.raises(PhotoError, match="te veel pixels"):
        photo_process(upload(out.getvalue(), "bom.png", "image/png"))


def test_too_large_files_are_refused_before_decoding(settings):
    settings.PHOTO_MAX_BYTES = 1000
    with pytest.raises(PhotoError, match="te groot"):
        photo_process(upload(image_bytes("PNG", size=(200, 200), color=(1, 2, 3)) + b"\0" * 2000, "x.png"))


# Libraries only the push worker or the Redis cache needs. Loaded in every process when the apps are ready,
# they were 30 MB of the 150 MB a process may reach while it decodes a photo (docs/performance.md).
NOT_FOR_A_PHOTO = ("pywebpush", "py_vapid", "aiohttp", "requests", "redis")
LOADED = (
    "import sys, django; django.setup(); from apps.challenges.photos import photo_process;"
    f"print(' '.join(name for name in {NOT_FOR_A_PHOTO!r} if name in sys.modules))"
)


def test_the_photo_process_loads_no_push_or_redis_library():
    """A fresh process with a Redis URL set, as on the site: its settings and ready hooks import none of them."""
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0"}  # never dialled: nothing here uses the cache
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", LOADED],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip() == ""
