"""Peak memory (and time) of the photo pipeline per file, accepted and refused, each in a fresh process.

Goals (issues 7 and 10): at most 150 MB peak resident memory for any file, accepted or refused, and
at most 1.5 s for a 12 MP phone photo. The files: real-photo-like JPEGs of 12 and 48 MP, a progressive
48 MP JPEG, a long panorama, PNG/WebP/HEIC at the full-decode pixel limit, and decompression bombs
(a 143 KB 7000 x 7000 PNG, a 20000 x 20000 1-bit PNG).

    .venv/bin/python bench/photo_pipeline.py                 # a table, and one JSON line per file
    .venv/bin/python bench/photo_pipeline.py --out FILE.json # also write the rows as JSON
"""

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

GOAL_PEAK_MB = 150
GOAL_SECONDS_12MP = 1.5


def _camera_like(width: int, height: int, noise_sigma: int = 64):
    """Noise over a gradient: compresses badly, like a camera's output (a flat image would flatter us)."""
    from PIL import Image

    noise = Image.effect_noise((width, height), noise_sigma).convert("RGB")
    gradient = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    return Image.blend(noise, gradient, 0.5)


def _jpeg(width: int, height: int, noise_sigma: int = 64, quality: int = 90, **options) -> bytes:
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° to display, as a phone held upright writes it
    out = io.BytesIO()
    photo = _camera_like(width, height, noise_sigma)
    photo.save(out, format="JPEG", quality=quality, exif=exif.tobytes(), **options)
    return out.getvalue()


def _flat(fmt: str, width: int, height: int, mode: str = "RGB", **options) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new(mode, (width, height)).save(out, format=fmt, **options)
    return out.getvalue()


def _heic(width: int, height: int) -> bytes:
    import pillow_heif

    out = io.BytesIO()
    pillow_heif.from_pillow(_camera_like(width, height, 16)).save(out, quality=80)
    return out.getvalue()


# name -> (how to make it, file name, what should happen).
# 48 MP phone photos are 8000 x 6000 and about 12 MB: less noise than the 12 MP sample, to stay that size.
SAMPLES = {
    "jpeg-12mp": (lambda: _jpeg(4000, 3000), "camera.jpg", "accepted"),
    "jpeg-48mp": (lambda: _jpeg(8000, 6000, noise_sigma=12, quality=85), "camera48.jpg", "accepted"),
    "jpeg-panorama-40000x1000": (lambda: _jpeg(40000, 1000, noise_sigma=12, quality=85), "pano.jpg", "accepted"),
    "jpeg-8mp-progressive": (lambda: _jpeg(3264, 2448, progressive=True), "prog8.jpg", "accepted"),
    "jpeg-48mp-progressive": (lambda: _jpeg(8000, 6000, 12, 85, progressive=True), "prog48.jpg", "refused"),
    "png-8mp-rgba": (lambda: _flat("PNG", 3264, 2448, "RGBA"), "scherm.png", "accepted"),
    "png-12mp": (lambda: _flat("PNG", 4032, 3024), "groot.png", "refused"),
    "webp-4mp-rgba": (lambda: _flat("WEBP", 2448, 1632, "RGBA", lossless=True), "foto.webp", "accepted"),
    "webp-8mp": (lambda: _flat("WEBP", 3264, 2448, lossless=True), "groot.webp", "refused"),
    "heic-8mp": (lambda: _heic(3264, 2448), "iphone.heic", "accepted"),
    "png-bomb-7000x7000": (lambda: _flat("PNG", 7000, 7000), "bom.png", "refused"),
    "png-bomb-20000x20000-1bit": (lambda: _flat("PNG", 20000, 20000, "1"), "bom1.png", "refused"),
}


def _high_water_kb() -> int:
    """Peak resident memory of this process. (getrusage's maxrss survives exec on Linux, so a child
    would report its parent's peak; VmHWM belongs to this process image alone.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(path: Path, name: str) -> None:
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.challenges.photos import PhotoError, photo_process

    data = path.read_bytes()
    upload = SimpleUploadedFile(path.name, data, content_type="application/octet-stream")
    before_kb = _high_water_kb()
    started = time.perf_counter()
    try:
        result = photo_process(upload)
        outcome, output_bytes = "accepted", len(result.full)
    except PhotoError as error:
        outcome, output_bytes = f"refused: {error}", 0
    seconds = time.perf_counter() - started
    peak_kb = _high_water_kb()
    row = {
        "file": name,
        "input_bytes": len(data),
        "outcome": outcome,
        "seconds": round(seconds, 3),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "rss_before_mb": round(before_kb / 1024, 1),
        "output_bytes": output_bytes,
    }
    print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", help="write the rows as JSON to this file")
    parser.add_argument("--only", nargs="*", help="measure only these samples")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (make, filename, expected) in SAMPLES.items():
            if args.only and name not in args.only:
                continue
            # Making a sample costs far more memory than processing it: make it here, measure elsewhere.
            path = Path(folder) / filename
            path.write_bytes(make())
            out = subprocess.run(  # noqa: S603
                [sys.executable, __file__, "--measure", str(path), name], check=True, capture_output=True, text=True
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["expected"] = expected
            row["as_expected"] = row["outcome"].startswith(expected)
            row["within_memory_goal"] = row["peak_rss_mb"] <= GOAL_PEAK_MB
            if name == "jpeg-12mp":
                row["within_time_goal"] = row["seconds"] <= GOAL_SECONDS_12MP
            rows.append(row)
            print(json.dumps(row), flush=True)
            path.unlink()
    print()
    print(f"| file | input | outcome | peak RSS (goal ≤ {GOAL_PEAK_MB} MB) | before the photo | time |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {row['file']} | {row['input_bytes'] / 1e6:.1f} MB | {row['outcome']} | {row['peak_rss_mb']} MB"
            f" | {row['rss_before_mb']} MB | {row['seconds']} s |"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        measure(Path(sys.argv[2]), sys.argv[3])
    else:
        main()
