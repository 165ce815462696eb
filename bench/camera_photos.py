"""12 MP camera photos for the photo dip, made here (no photo files in the repository).

- `camera_photo`: soft shapes on sky and water gradients, coarse texture and sensor noise. Its fine noise
  is what a shrink to 2048 px averages away: about 245 KB at quality 0.65 in Chromium, a plain photo.
- `detailed_photo`: water with waves, a row of trees, and texture at several scales, the structure a real
  beach photo keeps at 2048 px: about 475 KB at quality 0.65 in Chromium (real ones: 443–495 KB), so a
  shrink to a fixed quality misses a byte budget with it.

Both are 4000 × 3000 JPEGs at quality 95 on their side, with an EXIF orientation tag (6) and a camera
make, as a phone writes them.
"""

import io
import math
import random

from PIL import Image, ImageChops, ImageDraw, ImageFilter

# EXIF orientation 6: the camera held upright, the sensor's pixels stored on their side (as phones do).
EXIF_ORIENTATION = 0x0112
ROTATED_90 = 6
EXIF_MAKE = 0x010F
SIZE = (4000, 3000)


def _as_camera_jpeg(photo: Image.Image, quality: int) -> bytes:
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = ROTATED_90
    exif[EXIF_MAKE] = "Koud Camera"
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=quality, exif=exif.tobytes())
    return out.getvalue()


def camera_photo(size: tuple[int, int] = SIZE, *, quality: int = 95, seed: int = 12) -> bytes:
    """A 12 MP JPEG as a phone camera writes it (about 5 MB): a scene of soft shapes on sky and water
    gradients, coarse texture and sensor noise, at quality 95, with an EXIF orientation tag (6) and a
    camera make. At 2048 px it is about 440 KB at quality 85, as a real beach photo of 5 MB is."""
    width, height = size
    rng = random.Random(seed)
    sky = Image.linear_gradient("L").resize(size)
    scene = Image.merge(
        "RGB", [sky.point(lambda v: 60 + v // 3), sky.point(lambda v: 110 + v // 4), sky.point(lambda v: 200 - v // 5)]
    )
    draw = ImageDraw.Draw(scene)
    for _ in range(400):
        x, y, r = rng.randrange(width), rng.randrange(height), rng.randrange(10, 300)
        draw.ellipse([x - r, y - r // 2, x + r, y + r // 2], fill=tuple(rng.randrange(256) for _ in range(3)))
    scene = scene.filter(ImageFilter.GaussianBlur(3))
    texture = Image.effect_noise((width // 24, height // 24), 16).resize(size, Image.Resampling.BICUBIC)
    scene = ImageChops.add(scene, Image.merge("RGB", [texture] * 3), offset=-128)
    noise = Image.merge("RGB", [Image.effect_noise(size, 7) for _ in range(3)])
    return _as_camera_jpeg(ImageChops.add(scene, noise, offset=-128), quality)


# Texture octaves (cell size in pixels of the 12 MP photo, strength): clouds and foliage down to the grain
# of ripples, each still several pixels wide at 2048 px, so a shrink keeps it.
_OCTAVES = ((96, 14), (24, 11), (8, 9), (3, 5))


def detailed_photo(size: tuple[int, int] = SIZE, *, quality: int = 95, seed: int = 7) -> bytes:
    """A 12 MP JPEG with real detail (about 6 MB): sky over water, hundreds of thin wave crests that grow
    towards the front, a row of branching trees on the shore, and texture at four scales plus a little
    sensor noise. Drawn with Pillow in about 2 s."""
    width, height = size
    rng = random.Random(seed)
    horizon = int(height * 0.45)
    sky = Image.linear_gradient("L").resize((width, horizon))
    water = Image.linear_gradient("L").resize((width, height - horizon))
    scene = Image.new("RGB", size)
    sky_rgb = [sky.point(lambda v: 90 + v // 3), sky.point(lambda v: 140 + v // 4), sky.point(lambda v: 230 - v // 6)]
    water_rgb = [
        water.point(lambda v: 20 + v // 4),
        water.point(lambda v: 70 + v // 4),
        water.point(lambda v: 100 + v // 5),
    ]
    scene.paste(Image.merge("RGB", sky_rgb), (0, 0))
    scene.paste(Image.merge("RGB", water_rgb), (0, horizon))
    draw = ImageDraw.Draw(scene)
    for _ in range(900):  # wave crests: small and dense at the horizon, bigger in front
        y0 = horizon + (height - horizon) * rng.random() ** 1.6
        depth = (y0 - horizon) / (height - horizon)
        amplitude, wavelength = 2 + 10 * depth, 20 + 160 * depth
        x0, length, phase = rng.uniform(-200, width), rng.uniform(100, 900) * (0.3 + depth), rng.random() * math.tau
        points = [
            (x0 + t, y0 + amplitude * math.sin(phase + t * math.tau / wavelength)) for t in range(0, int(length), 3)
        ]
        shade = rng.randrange(-60, 90)
        if len(points) > 1:
            draw.line(
                points,
                fill=(max(0, 60 + shade), max(0, 110 + shade), max(0, 140 + shade)),
                width=max(1, int(1 + 3 * depth)),
            )

    def branch(x: float, y: float, angle: float, length: float, thickness: float, depth: int) -> None:
        if depth == 0 or length < 3:
            return
        x2, y2 = x + length * math.cos(angle), y - length * math.sin(angle)
        green = rng.randrange(40, 110)
        draw.line([(x, y), (x2, y2)], fill=(green // 2, green, green // 3), width=max(1, int(thickness)))
        for _ in range(rng.choice((2, 3))):
            branch(x2, y2, angle + rng.uniform(-0.7, 0.7), length * rng.uniform(0.6, 0.8), thickness * 0.7, depth - 1)

    for _ in range(70):  # the trees on the shore
        trunk = (rng.uniform(0, width), horizon + rng.uniform(-5, 20))
        branch(*trunk, math.pi / 2 + rng.uniform(-0.2, 0.2), rng.uniform(80, 260), rng.uniform(4, 12), 8)
    for cell, strength in _OCTAVES:
        octave = Image.effect_noise((width // cell + 1, height // cell + 1), strength).resize(
            size, Image.Resampling.BICUBIC
        )
        scene = ImageChops.add(scene, Image.merge("RGB", [octave] * 3), offset=-128)
    noise = Image.merge("RGB", [Image.effect_noise(size, 3) for _ in range(3)])
    return _as_camera_jpeg(ImageChops.add(scene, noise, offset=-128), quality)
