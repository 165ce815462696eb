"""The photo pipeline: decode with Pillow, refuse anything that is not a sound image, re-encode clean.

Re-encoding is what makes a photo safe to keep: the EXIF orientation is applied and then every bit of
metadata (GPS positions of swimming spots included) is left behind, because nothing is copied over.
"""

import contextlib
import io
import threading
import time
import warnings
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from PIL import Image, ImageOps, UnidentifiedImageError

from apps.core.errors import DomainError

from .refusals import DipRefusal
from .upload_handlers import InterruptedUploadDetector

try:  # HEIC from iPhones, when the wheel is available for this platform.
    from pillow_heif import register_heif_opener

    register_heif_opener()
    HEIC_SUPPORTED = True
except ImportError:  # pragma: no cover - the pinned requirements include it
    HEIC_SUPPORTED = False

ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP", "MPO", "HEIF"}
# libjpeg decodes these at 1/2, 1/4 or 1/8 scale (draft()), so a big photo costs a fraction of its pixels.
# A progressive JPEG is not among them: libjpeg keeps every coefficient of the full image while decoding it.
REDUCIBLE_FORMATS = {"JPEG", "MPO"}
# Pillow's WebP decoder keeps its own full-size canvas next to the image: twice the memory per pixel
# of PNG or HEIC (measured by bench/photo_pipeline.py), so half the pixels.
WEBP_MEMORY_FACTOR = 2
MAX_SIDE = 2048
# libjpeg only reduces by 1/2, 1/4 or 1/8. Asking it for exactly MAX_SIDE would decode a 12 MP photo
# (4000 px) whole to keep 2048 px of it; asking for 7/8 of that decodes it at half scale (2000 px, kept
# as it is) in a quarter of the memory. An 8 MP photo (3264 px) is still decoded whole and kept at
# 2048 px, and no photo larger than this ends up smaller.
DRAFT_SIDE = MAX_SIDE * 7 // 8
THUMB_SIDE = 480
JPEG_QUALITY = 85

MESSAGE_TOO_LARGE = "Deze foto is te groot. Het maximum is {mb} MB."
MESSAGE_NOT_AN_IMAGE = "Dit bestand is geen foto. Kies een JPEG-, PNG-, WebP- of HEIC-afbeelding."
MESSAGE_DAMAGED = "Deze foto is beschadigd of onvolledig. Kies een andere foto."
MESSAGE_TOO_MANY_PIXELS = "Deze foto heeft te veel pixels. Kies een kleinere foto."
MESSAGE_BUSY = "Het is even erg druk met foto's verwerken. Probeer het over een minuut opnieuw."
MESSAGE_UPLOAD_RATE = "Je hebt in korte tijd veel foto's verstuurd. Wacht even en probeer het dan opnieuw."
MESSAGE_UPLOAD_INCOMPLETE = "Je foto is niet helemaal aangekomen. Probeer het opnieuw, met een betere verbinding."
# Room for the multipart envelope and the other fields around a photo at the limit.
UPLOAD_OVERHEAD_BYTES = 64 * 1024


class PhotoError(DomainError):
    """A refused upload; the message is Dutch and meant for the member."""


class PhotoBusyError(PhotoError):
    """Every decode slot of this process stayed taken; the member may simply try again."""

    status = 503


@dataclass(frozen=True)
class ProcessedPhoto:
    full: bytes
    thumbnail: bytes
    extension: str = "jpg"


def max_photo_bytes() -> int:
    return settings.PHOTO_MAX_BYTES


def too_large_message() -> str:
    return MESSAGE_TOO_LARGE.format(mb=max_photo_bytes() // (1024 * 1024))


def pixel_limit(image: Image.Image) -> int:
    """The most pixels this file may have: a 48 MP phone photo when the decoder can shrink it while
    decoding, less when every pixel has to be held at full size."""
    if image.format in REDUCIBLE_FORMATS and not image.info.get("progressive"):
        return settings.PHOTO_MAX_PIXELS
    if image.format == "WEBP":
        return settings.PHOTO_MAX_PIXELS_FULL_DECODE // WEBP_MEMORY_FACTOR
    return settings.PHOTO_MAX_PIXELS_FULL_DECODE


# One per worker process: a sync worker decodes one photo at a time anyway; threaded workers wait here,
# so a burst of uploads cannot hold many decoded photos in memory at once.
_decode_slots = threading.BoundedSemaphore(settings.PHOTO_MAX_CONCURRENT_DECODES)


@contextlib.contextmanager
def photo_decode_slot():
    """Hold one of the process's decode slots; PhotoBusyError when none frees up in time."""
    if not _decode_slots.acquire(timeout=settings.PHOTO_DECODE_WAIT_SECONDS):
        raise PhotoBusyError(MESSAGE_BUSY, code=DipRefusal.PHOTO_BUSY)
    try:
        yield
    finally:
        _decode_slots.release()


def upload_size_check(request) -> None:
    """Refuse a body too big for a photo at the limit (413) from its Content-Length: before it is read."""
    if int(request.META.get("CONTENT_LENGTH") or 0) > max_photo_bytes() + UPLOAD_OVERHEAD_BYTES:
        raise PhotoError(too_large_message(), code=DipRefusal.PHOTO_TOO_LARGE, status=413)


def photo_from_request(request, *, detector: InterruptedUploadDetector | None = None) -> ProcessedPhoto | None:
    """The photo of a dip form ("photo"), checked and re-encoded; None without one. Raises PhotoError.

    One sequence for a new dip and an edited one: the size, a file that did not arrive whole (when the view
    installed the `detector` before the body was read), the member's upload budget, then a decode slot of
    this process for the decoding itself.
    """
    upload_size_check(request)
    if detector is not None and detector.interrupted:
        raise PhotoError(MESSAGE_UPLOAD_INCOMPLETE, code=DipRefusal.PHOTO_INCOMPLETE)
    upload = request.FILES.get("photo")
    if upload is None:
        return None
    if not photo_upload_allowed(user_id=request.user.pk):
        raise PhotoError(MESSAGE_UPLOAD_RATE, code=DipRefusal.PHOTO_RATE, status=429)
    with photo_decode_slot():
        return photo_process(upload)


def photo_upload_allowed(*, user_id: int, now: float | None = None) -> bool:
    """Count one photo upload for the member; False once they sent more than the limit in this window.

    Counted in the shared cache (Redis in production), so every worker and container sees the same count;
    while Redis fails, in the database cache (config/settings/caches.py): the limit holds in an outage too.
    Refused uploads count too: they cost the server as much work as accepted ones.
    """
    window = settings.PHOTO_UPLOAD_WINDOW_SECONDS
    bucket = int((now if now is not None else time.time()) // window)
    key = f"photo-uploads:{user_id}:{bucket}"
    if cache.add(key, 1, timeout=window):
        count = 1
    else:
        try:
            count = cache.incr(key)
        except ValueError:  # the key expired between add and incr: a new window begins
            cache.add(key, 1, timeout=window)
            count = 1
    return count <= settings.PHOTO_UPLOADS_PER_WINDOW


def photo_process(upload) -> ProcessedPhoto:
    """Check and re-encode an uploaded file. Raises PhotoError with a Dutch message.

    Memory stays bounded: the pixel count is checked from the header before anything is decoded, JPEGs
    are decoded at a reduced scale, a transparent photo is put on white before it is shrunk, and the photo
    is shrunk before it is rotated.
    """
    if upload.size is not None and upload.size > max_photo_bytes():
        raise PhotoError(too_large_message(), code=DipRefusal.PHOTO_TOO_LARGE)
    if upload.size == 0:
        raise PhotoError(MESSAGE_NOT_AN_IMAGE, code=DipRefusal.PHOTO_NOT_AN_IMAGE)

    upload.seek(0)
    with warnings.catch_warnings():
        # Pillow warns before it refuses; a warning is enough for us to refuse.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            # One expression, so no name here keeps the full-size original alive while it is shrunk.
            image = _load_shrunk_upright(_open_checked(upload))
        except PhotoError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PhotoError(MESSAGE_TOO_MANY_PIXELS, code=DipRefusal.PHOTO_TOO_MANY_PIXELS) from exc
        except UnidentifiedImageError as exc:
            raise PhotoError(MESSAGE_NOT_AN_IMAGE, code=DipRefusal.PHOTO_NOT_AN_IMAGE) from exc
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise PhotoError(MESSAGE_DAMAGED, code=DipRefusal.PHOTO_DAMAGED) from exc

    full = _encode(image)
    image.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.Resampling.LANCZOS)
    thumbnail = _encode(image)
    image.close()
    return ProcessedPhoto(full=full, thumbnail=thumbnail)


def _open_checked(upload) -> Image.Image:
    # verify() reads the whole file and catches truncation, but leaves the image unusable: open twice.
    probe = Image.open(upload)
    if probe.format not in ACCEPTED_FORMATS:
        raise PhotoError(MESSAGE_NOT_AN_IMAGE, code=DipRefusal.PHOTO_NOT_AN_IMAGE)
    if probe.width * probe.height > pixel_limit(probe):
        raise PhotoError(MESSAGE_TOO_MANY_PIXELS, code=DipRefusal.PHOTO_TOO_MANY_PIXELS)
    probe.verify()
    upload.seek(0)
    image = Image.open(upload)
    if image.format in REDUCIBLE_FORMATS:
        # Ask libjpeg for a size with the photo's aspect ratio (so a long thin panorama is reduced as
        # well): it then decodes at 1/2, 1/4 or 1/8 scale straight away.
        image.draft("RGB", _fitted(image.size, DRAFT_SIDE))
    return image


def _fitted(size: tuple[int, int], side: int) -> tuple[int, int]:
    width, height = size
    scale = min(1.0, side / max(width, height))
    return max(1, round(width * scale)), max(1, round(height * scale))


def _load_shrunk_upright(image: Image.Image) -> Image.Image:
    image.load()
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        # Palette, 1-bit, 16-bit and CMYK pixels cannot be resampled well: convert first. The pixel limit
        # for files that are decoded at full size keeps this copy small.
        image = image.convert("RGBA" if "transparency" in image.info or image.mode == "PA" else "RGB")
    if image.mode in ("RGBA", "LA"):
        # Shrinking with an alpha channel makes a premultiplied copy at full size first; on white there
        # is no alpha left to weigh, and the result is the same photo with a third less memory. Once
        # flattened, the original is let go of (no other name holds it) before the shrinking starts.
        image = _on_white(image)
    # Shrink in place before rotating, so that copy is made of the small photo.
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    oriented = ImageOps.exif_transpose(image)
    return oriented.convert("RGB") if oriented.mode == "L" else oriented


def _on_white(image: Image.Image) -> Image.Image:
    background = Image.new("RGB", image.size, (255, 255, 255))
    background.paste(image, mask=image)
    background.info = image.info  # the orientation, read by exif_transpose
    return background


def _encode(image: Image.Image) -> bytes:
    image.info = {}
    out = io.BytesIO()
    # No exif=, no icc_profile=: nothing of the original's metadata is written.
    image.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return out.getvalue()
