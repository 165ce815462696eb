"""What a member on a phone feels: member pages in headless Chromium on a slow 4G line with a slow CPU.

    python bench/phone.py --port 8765 --cookie "sessionid=…; csrftoken=…" --out bench/results/raw/phone.json

Each URL is opened `--runs` times in a fresh browser context (an empty cache, as on a first visit) and
`--runs` times again with the cache of a previous visit (as the next day), on a phone screen (390 × 844),
with Chrome DevTools' network throttling (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up: the
"slow 4G" profile) and 4× CPU slowdown. Measured by the browser itself: time to first byte, first
contentful paint, largest contentful paint, and the bytes that went over the wire (every response,
headers included). The medians go into bench/report.py's table.
"""

import argparse
import io
import json
import random
import statistics

from PIL import Image, ImageChops, ImageDraw, ImageFilter
from playwright.sync_api import sync_playwright

HOST = "127.0.0.1"
URLS = ("/dashboard", "/challenge")
# Chrome DevTools' "Slow 4G" preset (as in Lighthouse's mobile run).
LATENCY_MS = 150
DOWNLOAD_BYTES_PER_S = 1_600_000 / 8
UPLOAD_BYTES_PER_S = 750_000 / 8
CPU_SLOWDOWN = 4
# The stamp card is drawn by its island after load: wait for it before reading the largest paint.
READY_SELECTOR = {"/challenge": "#stampcard-root > *"}

# Read in the page once it has loaded; LCP entries are buffered, so observing now still sees them.
METRICS_JS = """
() => new Promise((resolve) => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  let lcp = null;
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    lcp = entries[entries.length - 1].startTime;
  }).observe({ type: "largest-contentful-paint", buffered: true });
  setTimeout(() => resolve({
    ttfb_ms: navigation.responseStart,
    fcp_ms: paint ? paint.startTime : null,
    lcp_ms: lcp,
    load_ms: navigation.loadEventEnd,
  }), 50);
})
"""


# EXIF orientation 6: the camera held upright, the sensor's pixels stored on their side (as phones do).
EXIF_ORIENTATION = 0x0112
ROTATED_90 = 6


def camera_photo(size: tuple[int, int] = (4000, 3000), *, quality: int = 95, seed: int = 12) -> bytes:
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
    photo = ImageChops.add(scene, noise, offset=-128)
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = ROTATED_90
    exif[0x010F] = "Koud Camera"  # Make
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=quality, exif=exif.tobytes())
    return out.getvalue()


def _cookies(header: str, port: int) -> list[dict]:
    pairs = (part.strip().split("=", 1) for part in header.split(";") if "=" in part)
    return [{"name": name, "value": value, "url": f"http://{HOST}:{port}"} for name, value in pairs]


def new_phone(browser, *, port: int, cookie: str):
    """A browser profile of its own (its own HTTP cache) on a phone screen, signed in as the member."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale="nl-NL",
        # gunicorn trusts this header from 127.0.0.1: production's HTTPS redirect stays on and out of the way.
        extra_http_headers={"X-Forwarded-Proto": "https"},
    )
    context.add_cookies(_cookies(cookie, port))
    return context, context.new_page()


def visit(context, page, url: str, *, port: int) -> dict:
    """Open the URL on a throttled line and CPU; the browser's own timings and the bytes on the wire."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": LATENCY_MS,
            "downloadThroughput": DOWNLOAD_BYTES_PER_S,
            "uploadThroughput": UPLOAD_BYTES_PER_S,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    transferred = {"bytes": 0, "requests": 0}

    def finished(event):
        transferred["bytes"] += event.get("encodedDataLength", 0)
        transferred["requests"] += 1

    cdp.on("Network.loadingFinished", finished)
    response = page.goto(f"http://{HOST}:{port}{url}", wait_until="load")
    if response is None or response.status != 200 or page.url.rstrip("/").endswith("/auth"):
        raise SystemExit(f"{url} did not open as the signed-in member ({response and response.status}, {page.url})")
    if url in READY_SELECTOR:
        page.wait_for_selector(READY_SELECTOR[url], timeout=30_000)
    page.wait_for_timeout(300)
    metrics = page.evaluate(METRICS_JS)
    metrics.update(transferred)
    cdp.detach()
    return metrics


def summarise(runs: list[dict]) -> dict:
    keys = ("ttfb_ms", "fcp_ms", "lcp_ms", "load_ms", "bytes", "requests")
    return {key: statistics.median(run[key] for run in runs if run.get(key) is not None) for key in keys}


def measure_page(browser, url: str, *, port: int, cookie: str, runs: int) -> dict:
    cold = []
    for _ in range(runs):
        # A first visit: a fresh profile, nothing cached.
        context, page = new_phone(browser, port=port, cookie=cookie)
        cold.append(visit(context, page, url, port=port))
        context.close()
    # The next visits: one profile that has been here before, so hashed static files come from its cache.
    context, page = new_phone(browser, port=port, cookie=cookie)
    page.goto(f"http://{HOST}:{port}{url}", wait_until="load")
    warm = []
    for _ in range(runs):
        page.goto("about:blank")
        warm.append(visit(context, page, url, port=port))
    context.close()
    return {"cold": summarise(cold), "warm": summarise(warm)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cookie", required=True, help="the Cookie header of a signed-in member")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    results = {
        "profile": {
            "latency_ms": LATENCY_MS,
            "down_kbit_s": round(DOWNLOAD_BYTES_PER_S * 8 / 1000),
            "up_kbit_s": round(UPLOAD_BYTES_PER_S * 8 / 1000),
            "cpu_slowdown": CPU_SLOWDOWN,
            "runs": args.runs,
        },
        "pages": {},
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for url in URLS:
            measured = measure_page(browser, url, port=args.port, cookie=args.cookie, runs=args.runs)
            results["pages"][url] = measured
            cold, warm = measured["cold"], measured["warm"]
            print(
                f"   {url:12} first visit: TTFB {cold['ttfb_ms']:.0f} ms, FCP {cold['fcp_ms']:.0f} ms, "
                f"LCP {cold['lcp_ms']:.0f} ms, {cold['bytes'] / 1024:.1f} KB; next visit: "
                f"LCP {warm['lcp_ms']:.0f} ms, {warm['bytes'] / 1024:.1f} KB"
            )
        browser.close()
    with open(args.out, "w") as handle:
        json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
