"""Time and peak memory of the photo pipeline on a 12-megapixel JPEG with EXIF (issue 7 targets:
at most 1.5 s and 300 MB resident). Runs in its own process so the peak RSS is the pipeline's own.

    .venv/bin/python bench/photo_pipeline.py          # prints one JSON line
"""

import io
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from PIL import Image  # noqa: E402

from apps.challenges.photos import photo_process  # noqa: E402


def twelve_megapixel_jpeg() -> bytes:
    """4000 x 3000 with real-photo-like detail (noise compresses badly, like a camera's output)."""
    width, height = 4000, 3000
    noise = Image.effect_noise((width, height), 64).convert("RGB")
    gradient = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    photo = Image.blend(noise, gradient, 0.5)
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    photo.save(out, format="JPEG", quality=92, exif=exif.tobytes())
    return out.getvalue()


def _high_water_kb() -> int:
    """Peak resident memory of this process. (getrusage's maxrss survives exec on Linux, so a child
    would report its parent's peak; VmHWM belongs to this process image alone.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(path: Path) -> None:
    data = path.read_bytes()
    baseline_rss_kb = _high_water_kb()
    upload = SimpleUploadedFile("camera.jpg", data, content_type="image/jpeg")
    started = time.perf_counter()
    result = photo_process(upload)
    seconds = time.perf_counter() - started
    peak_rss_kb = _high_water_kb()
    print(
        json.dumps(
            {
                "input_megapixels": 12.0,
                "input_bytes": len(data),
                "seconds": round(seconds, 3),
                "peak_rss_mb": round(peak_rss_kb / 1024, 1),
                "rss_before_mb": round(baseline_rss_kb / 1024, 1),
                "output_bytes": len(result.full),
                "thumbnail_bytes": len(result.thumbnail),
            }
        )
    )


def main() -> None:
    # Making the test photo costs far more memory than processing it: do it in this process, and
    # measure the pipeline in a fresh one.
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "camera.jpg"
        path.write_bytes(twelve_megapixel_jpeg())
        subprocess.run([sys.executable, __file__, "--measure", str(path)], check=True)  # noqa: S603


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        measure(Path(sys.argv[2]))
    else:
        main()
