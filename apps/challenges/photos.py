"""The photo pipeline: decode with Pillow, refuse anything that is not a sound image, re-encode clean.

Re-encoding is what makes a photo safe to keep: the EXIF orientation is applied and then every bit of
metadata (GPS positions of swimming spots included) is left behind, because nothing is copied over.
"""

import io
import warnings
from dataclasses import dataclass

from django.conf import settings
from PIL import Image, ImageOps, UnidentifiedImageError

try:  # HEIC from iPhones, when the wheel is available for this platform.
    from pillow_heif import register_heif_opener

    register_heif_opener()
    HEIC_SUPPORTED = True
except ImportError:  # pragma: no cover - the pinned requirements include it
    HEIC_SUPPORTED = False

ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "MPO", "HEIF"}
MAX_SIDE = 2048
THUMB_SIDE = 480
MAX_PIXELS = 50_000_000  # about 50 megapixels; beyond that a "photo" is most likely a decompression bomb
JPEG_QUALITY = 85

MESSAGE_TOO_LARGE = "Deze foto is te groot. Het maximum is {mb} MB."
MESSAGE_NOT_AN_IMAGE = "Dit bestand is geen foto. Kies een JPEG-, PNG-, WebP- of HEIC-afbeelding."
MESSAGE_DAMAGED = "Deze foto is beschadigd of onvolledig. Kies een andere foto."
MESSAGE_TOO_MANY_PIXELS = "Deze foto heeft te veel pixels. Kies een kleinere foto."


class PhotoError(Exception):
    """A refused upload; the message is Dutch and meant for the member."""


@dataclass(frozen=True)
class ProcessedPhoto:
    full: bytes
    thumbnail: bytes
    extension: str = "jpg"


def max_photo_bytes() -> int:
    return settings.PHOTO_MAX_BYTES


def too_large_message() -> str:
    return MESSAGE_TOO_LARGE.format(mb=max_photo_bytes() // (1024 * 1024))


def photo_process(upload) -> ProcessedPhoto:
    """Check and re-encode an uploaded file. Raises PhotoError with a Dutch message."""
    if upload.size is not None and upload.size > max_photo_bytes():
        raise PhotoError(too_large_message())
    if upload.size == 0:
        raise PhotoError(MESSAGE_NOT_AN_IMAGE)

    upload.seek(0)
    with warnings.catch_warnings():
        # Pillow warns before it refuses; a warning is enough for us to refuse.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = _open_checked(upload)
            image = _load_oriented(image)
        except PhotoError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PhotoError(MESSAGE_TOO_MANY_PIXELS) from exc
        except UnidentifiedImageError as exc:
            raise PhotoError(MESSAGE_NOT_AN_IMAGE) from exc
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise PhotoError(MESSAGE_DAMAGED) from exc

    # Shrink in place, and make the thumbnail from the shrunk photo: no full-size copies are kept.
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    full = _encode(image)
    image.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.Resampling.LANCZOS)
    thumbnail = _encode(image)
    image.close()
    return ProcessedPhoto(full=full, thumbnail=thumbnail)


def _open_checked(upload) -> Image.Image:
    # verify() reads the whole file and catches truncation, but leaves the image unusable: open twice.
    probe = Image.open(upload)
    if probe.format not in ACCEPTED_FORMATS:
        raise PhotoError(MESSAGE_NOT_AN_IMAGE)
    if probe.width * probe.height > MAX_PIXELS:
        raise PhotoError(MESSAGE_TOO_MANY_PIXELS)
    probe.verify()
    upload.seek(0)
    image = Image.open(upload)
    if image.format == "JPEG":
        # Let libjpeg decode at a reduced scale: a 12 MP photo then costs a fraction of the memory and time.
        image.draft("RGB", (MAX_SIDE, MAX_SIDE))
    return image


def _load_oriented(image: Image.Image) -> Image.Image:
    image.load()
    oriented = ImageOps.exif_transpose(image)
    if oriented.mode not in ("RGB", "L"):
        background = Image.new("RGB", oriented.size, (255, 255, 255))
        rgba = oriented.convert("RGBA")
        background.paste(rgba, mask=rgba.getchannel("A"))
        oriented = background
    elif oriented.mode == "L":
        oriented = oriented.convert("RGB")
    return oriented


def _encode(image: Image.Image) -> bytes:
    image.info = {}
    out = io.BytesIO()
    # No exif=, no icc_profile=: nothing of the original's metadata is written.
    image.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return out.getvalue()
