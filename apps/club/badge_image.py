""" "Deel je badge": a square PNG the server draws with Pillow: the badge art, its name, the number of dips,
the date and the club's name. Only for the badge's owner (the view checks that); nothing else of the member
(no name, no e-mail address) is on it, so it is safe to send anywhere.

The catalogue's own art is SVG, which Pillow cannot draw: a PNG beside it (static/badges/<name>.png, drawn
from the SVG once) is used when there is one, uploaded art (PNG in its own storage) as it is, and otherwise
a medal with the badge's first letter.
"""

import io
import re
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.utils.text import slugify
from PIL import Image, ImageDraw, ImageFont

from apps.challenges.badge_art import badge_art_storage
from apps.challenges.models import UserBadge
from apps.core.formatting import dutch_date

SIDE = 1080
ART_SIDE = 520
DEEP = (7, 42, 71)
OCEAN = (11, 79, 124)
ICE = (227, 241, 250)
ICE_TEXT = (191, 233, 245)
GOLD = (242, 177, 52)
ON_GOLD = (61, 38, 0)
WHITE = (255, 255, 255)
_UPLOADED_ART = re.compile(r"^/badge-art/([0-9a-f]{32}\.png)$")


def badge_share_filename(award: UserBadge) -> str:
    return f"badge-{slugify(award.badge.name)}.png"  # as the link's download name (templates/club/_share_badge.html)


def badge_share_png(award: UserBadge) -> bytes:
    """The image of one earned badge, as PNG bytes."""
    image = Image.new("RGB", (SIDE, SIDE), DEEP)
    draw = ImageDraw.Draw(image)
    # The sea: a lighter band at the bottom, a line of waves on top of it.
    draw.rectangle((0, SIDE * 0.78, SIDE, SIDE), fill=OCEAN)
    for x in range(0, SIDE, 90):
        draw.arc((x, SIDE * 0.78 - 22, x + 90, SIDE * 0.78 + 22), 180, 360, fill=ICE_TEXT, width=6)
    _paste_art(image, award)
    badge = award.badge
    _centred(draw, badge.name, y=660, size=72, fill=WHITE, bold=True)
    dips = f"{badge.milestone_dips} {'plons' if badge.milestone_dips == 1 else 'plonsen'}"
    _centred(draw, f"{dips} · {dutch_date(award.earned_at)}", y=760, size=44, fill=ICE_TEXT)
    _centred(draw, settings.CLUB_NAME, y=SIDE - 150, size=46, fill=WHITE, bold=True)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _paste_art(image: Image.Image, award: UserBadge) -> None:
    art = _art_of(award.badge.image_url)
    box = ((SIDE - ART_SIDE) // 2, 90)
    if art is None:
        draw = ImageDraw.Draw(image)
        left, top = box
        draw.ellipse((left, top, left + ART_SIDE, top + ART_SIDE), fill=GOLD, outline=ICE, width=16)
        letter = (award.badge.name.strip()[:1] or "B").upper()
        _centred(draw, letter, y=top + ART_SIDE // 2 - 140, size=260, fill=ON_GOLD, bold=True)
        return
    art.thumbnail((ART_SIDE, ART_SIDE), Image.Resampling.LANCZOS)
    offset = (box[0] + (ART_SIDE - art.width) // 2, box[1] + (ART_SIDE - art.height) // 2)
    image.paste(art, offset, art if art.mode == "RGBA" else None)


def _art_of(image_url: str) -> Image.Image | None:
    """The badge's art as an image Pillow can draw, or None."""
    uploaded = _UPLOADED_ART.match(image_url or "")
    try:
        if uploaded:
            with badge_art_storage().open(uploaded.group(1), "rb") as handle:
                return Image.open(handle).convert("RGBA")
        if image_url and not image_url.startswith(("http://", "https://", "/")):
            found = finders.find(str(Path(image_url).with_suffix(".png")))
            if found:
                return Image.open(found if isinstance(found, str) else found[0]).convert("RGBA")
    except (OSError, ValueError):
        return None  # a lost or broken file: the medal instead, never a broken share
    return None


def _font(size: int, *, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf") if bold else ("DejaVuSans.ttf",):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)  # Pillow's own font: always there


def _centred(draw: ImageDraw.ImageDraw, text: str, *, y: int, size: int, fill, bold: bool = False) -> None:
    """One line, centred, shrunk until it fits the width (a long badge name or club name)."""
    while True:
        font = _font(size, bold=bold)
        left, _top, right, _bottom = draw.textbbox((0, 0), text, font=font)
        if right - left <= SIDE - 120 or size <= 20:
            break
        size -= 4
    draw.text(((SIDE - (right - left)) // 2 - left, y), text, font=font, fill=fill)
