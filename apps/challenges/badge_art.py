"""Uploaded badge art: decoded and re-encoded by the photo pipeline, kept as a clean PNG in public storage.

Badge art is public (it is on every badge card), so it goes to its own storage, never to the private
photo storage. SVG is refused outright: an SVG is a document that can carry script.
"""

import io
import uuid
import warnings
from enum import StrEnum

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from PIL import Image, ImageOps, UnidentifiedImageError

# The photo pipeline's checks, reused rather than copied (badge art keeps its alpha, so it cannot use
# photo_process, which flattens to JPEG).
from .photos import PhotoError, _open_checked, max_photo_bytes
from .refusals import DipRefusal

ACCEPTED_BADGE_FORMATS = {"PNG", "JPEG", "MPO", "WEBP"}  # MPO: a JPEG from a phone camera
BADGE_ART_SIDE = 512  # twice the largest size a badge is shown at, for sharp screens

MESSAGE_SVG_REFUSED = "SVG-bestanden worden niet geaccepteerd. Kies een PNG-, JPEG- of WebP-afbeelding."
MESSAGE_BADGE_FORMAT = "Dit bestand is geen PNG-, JPEG- of WebP-afbeelding."
MESSAGE_BADGE_TOO_LARGE = "Deze afbeelding is te groot. Het maximum is {mb} MB."
MESSAGE_BADGE_DAMAGED = "Deze afbeelding is beschadigd of onvolledig. Kies een andere afbeelding."
MESSAGE_BADGE_TOO_MANY_PIXELS = "Deze afbeelding heeft te veel pixels. Kies een kleinere afbeelding."
# The photo pipeline speaks of photos; an admin uploading art reads about images.
_BADGE_MESSAGES: dict[StrEnum, str] = {
    DipRefusal.PHOTO_TOO_MANY_PIXELS: MESSAGE_BADGE_TOO_MANY_PIXELS,
    DipRefusal.PHOTO_NOT_AN_IMAGE: MESSAGE_BADGE_FORMAT,
}


def badge_art_storage():
    return storages["badge_art"]


def badge_art_process(upload) -> bytes:
    """Check and re-encode an uploaded badge image; returns PNG bytes. Raises PhotoError (Dutch).

    The photo pipeline's own checks do the work (`_open_checked`: format, pixel limit before decoding,
    the whole file verified, JPEG decoded at reduced scale); badge art differs only in what it keeps:
    transparency, a small square-ish size and PNG.
    """
    if upload.size is not None and upload.size > max_photo_bytes():
        raise PhotoError(
            MESSAGE_BADGE_TOO_LARGE.format(mb=max_photo_bytes() // (1024 * 1024)), code=DipRefusal.PHOTO_TOO_LARGE
        )
    upload.seek(0)
    head = upload.read(512)
    upload.seek(0)
    if not head:
        raise PhotoError(MESSAGE_BADGE_FORMAT, code=DipRefusal.PHOTO_NOT_AN_IMAGE)
    if _looks_like_svg(upload.name or "", head):
        raise PhotoError(MESSAGE_SVG_REFUSED, code=DipRefusal.SVG_REFUSED)
    with warnings.catch_warnings():
        # Pillow warns before it refuses; a warning is enough for us to refuse.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = _open_checked(upload)
            if image.format not in ACCEPTED_BADGE_FORMATS:
                raise PhotoError(MESSAGE_BADGE_FORMAT, code=DipRefusal.PHOTO_NOT_AN_IMAGE)
            image.load()
            image = ImageOps.exif_transpose(image)
        except PhotoError as error:
            raise PhotoError(_BADGE_MESSAGES.get(error.code, error.message), code=error.code) from error
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PhotoError(MESSAGE_BADGE_TOO_MANY_PIXELS, code=DipRefusal.PHOTO_TOO_MANY_PIXELS) from exc
        except UnidentifiedImageError as exc:
            raise PhotoError(MESSAGE_BADGE_FORMAT, code=DipRefusal.PHOTO_NOT_AN_IMAGE) from exc
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise PhotoError(MESSAGE_BADGE_DAMAGED, code=DipRefusal.PHOTO_DAMAGED) from exc
    # Keep transparency: badges sit on coloured cards.
    image = image.convert("RGBA")
    image.thumbnail((BADGE_ART_SIDE, BADGE_ART_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.info = {}
    # Nothing of the original's metadata is written: no exif=, no icc_profile=, no text chunks.
    image.save(out, format="PNG", optimize=True)
    image.close()
    return out.getvalue()


def badge_art_save(png: bytes) -> str:
    """Store processed art under a fresh name; returns the public URL the badge keeps."""
    storage = badge_art_storage()
    name = storage.save(f"{uuid.uuid4().hex}.png", ContentFile(png))
    return storage.url(name)


def badge_art_delete(url: str) -> None:
    """Remove art this storage holds (a URL of the catalogue's static art is left alone)."""
    storage = badge_art_storage()
    prefix = storage.url("")
    if url and url.startswith(prefix):
        storage.delete(url[len(prefix) :])


def _looks_like_svg(name: str, head: bytes) -> bool:
    text = head.lstrip().lower()
    return name.lower().endswith((".svg", ".svgz")) or text.startswith((b"<?xml", b"<svg", b"<!doctype svg"))
