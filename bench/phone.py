"""What a member on a phone feels: member pages and a photo dip in headless Chromium on slow 4G.

    python bench/phone.py --port 8765 --cookie "sessionid=…; csrftoken=…" --out bench/results/raw/phone.json

The profile is Lighthouse's slow 4G (its DevTools throttling): 562.5 ms round trip, 1.6 Mbit/s down,
750 kbit/s up, and 4× CPU slowdown, set through the Chrome DevTools Protocol
(Network.emulateNetworkConditions, Emulation.setCPUThrottlingRate), on a phone screen (390 × 844).

- Pages: each URL is opened `--runs` times in a fresh browser context (an empty cache, as on a first
  visit), then `--runs` times in one context that has been there before, with the service worker
  installed and in control (as the next day). Measured by the browser itself: the HTML received
  (Navigation Timing's `responseEnd`: its `responseStart` does not see the emulated latency), first
  contentful paint, largest contentful paint, and the bytes over the wire (every response, headers
  included, the service worker's own fetches too).
- The service worker is throttled as well: it is a target of its own, which a page's CDP session does
  not reach, so its fetches went at full speed. `WorkerThrottle` attaches the browser's session to every
  worker. A next visit shows the member's kept page at once and the worker fetches the page again behind
  it (frontend/src/sw/pages.ts): that fetch is in the visit's bytes, over the same slow line.
- A photo dip: a 12 MP camera photo (4000 × 3000, about 5 MB, EXIF orientation; bench/camera_photos.py)
  chosen on /challenge and "Plons registreren" tapped. The card registers the dip at once without the
  photo and sends the photo to the stored dip when the phone has shrunk it (issue 37 §2,
  frontend/src/stampcard/photo-after.tsx): measured are the time from the tap to "Plons toegevoegd!" on
  screen, the time from the tap to "Foto toegevoegd." (the photo stored with its dip), and the bytes of
  each request (`photo_bytes_sent`: the photo's whole POST). Twice: the plain photo of the first runs (its
  fine noise shrinks away) and a detailed one (waves, trees: 475 KB at 2048 px and quality 0.65), which the
  phone must bring within its byte budget (goal: at most 280 KB sent). The tap comes right after the photo
  is chosen, so the shrinking on the phone (started on choosing) is inside the photo's time;
  `tap_to_request_ms` is the tap to the photo's request leaving. A load member whose active card has room
  taps (the bench member is one dip from done), and every measured dip is undone afterwards (once its
  photo is stored) through the app's own undo, so the data stays as seeded.
- The visit after a dip (goal 3): with the service worker in control, "Plons registreren" tapped on /challenge,
  "Plons toegevoegd!" awaited, then the worker's refreshed /dashboard awaited in the Cache Storage (kept after
  this phone's last write: what the worker shows at once, frontend/src/sw/pages.ts refreshAfterDip), then
  /dashboard opened. Twice: a dip without a photo, and one with the plain photo (awaited until "Foto
  toegevoegd.": the photo's request is a write of its own). Measured as the pages above, plus when the card's
  count was painted (Element Timing); checked: the count shown is the dip's new count, still after the worker's
  refresh behind it (never one going back), and the page is the member's own (X-Koud-Member). Each dip is undone
  afterwards.

The browser talks to gunicorn through a small proxy in this script that adds `X-Forwarded-Proto: https`
to every request, as the TLS proxy in front of production does. Headers given to Playwright only reach
the page's own requests: the service worker's script and its fetches went without them and got the
production HTTPS redirect, so no worker was ever installed.
"""

import argparse
import http.client
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # apps.* and bench.* when run as a script
from bench.camera_photos import camera_photo, detailed_photo  # noqa: E402

HOST = "127.0.0.1"
URLS = ("/dashboard", "/challenge")
# Lighthouse's slow 4G with DevTools throttling: 150 ms RTT × 3.75, 1.6 Mbit/s down, 750 kbit/s up, 4× CPU.
LATENCY_MS = 562.5
DOWNLOAD_BYTES_PER_S = 1_600_000 / 8
UPLOAD_BYTES_PER_S = 750_000 / 8
CPU_SLOWDOWN = 4
DIP_PATH = "/challenge/plons"
# The photo sent after its dip (POST /challenge/plons/<id>, photo_after_tap).
PHOTO_PATH = re.compile(r"/challenge/plons/\d+$")
ADDED = "Plons toegevoegd!"
PHOTO_ADDED = "Foto toegevoegd."
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}
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
    html_ms: navigation.responseEnd,
    fcp_ms: paint ? paint.startTime : null,
    lcp_ms: lcp,
    load_ms: navigation.loadEventEnd,
  }), 50);
})
"""


class HttpsProxy:
    """Forwards every request to gunicorn with `X-Forwarded-Proto: https` (as production's TLS proxy does)
    and counts the bytes of each dip and each photo sent after its dip (request line, headers and body)."""

    def __init__(self, upstream_port: int):
        proxy = self
        self.dip_bytes: list[int] = []
        self.dip_server_ms: list[float] = []  # gunicorn's answer time for each dip
        self.photo_bytes: list[int] = []
        self.photo_server_ms: list[float] = []  # gunicorn's answer time for each photo (checked, stored)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def handle(self):  # a browser that closes a connection (context closed) is no error here
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                path = self.path.split("?")[0]
                counted = None
                if self.command == "POST" and path == DIP_PATH:
                    counted = (proxy.dip_bytes, proxy.dip_server_ms)
                elif self.command == "POST" and PHOTO_PATH.search(path):
                    counted = (proxy.photo_bytes, proxy.photo_server_ms)
                if counted is not None:
                    counted[0].append(len(self.requestline) + 2 + len(bytes(self.headers)) + length)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                headers["X-Forwarded-Proto"] = "https"
                # The browser is on http://127.0.0.1 here, on https:// in production: so are its Origin and
                # Referer as Django's CSRF check compares them with the (https) request.
                for name in ("Origin", "Referer"):
                    if headers.get(name, "").startswith("http://"):
                        headers[name] = "https://" + headers[name][len("http://") :]
                upstream = http.client.HTTPConnection(HOST, upstream_port, timeout=120)
                try:
                    started = time.perf_counter()
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                    if counted is not None:
                        counted[1].append((time.perf_counter() - started) * 1000)
                    content = answer.read()
                    self.send_response_only(answer.status, answer.reason)
                    for name, value in answer.getheaders():
                        if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(content)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(content)
                finally:
                    upstream.close()

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = forward

        self.server = ThreadingHTTPServer((HOST, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _cookies(header: str, port: int) -> list[dict]:
    pairs = (part.strip().split("=", 1) for part in header.split(";") if "=" in part)
    return [{"name": name, "value": value, "url": f"http://{HOST}:{port}"} for name, value in pairs]


def throttle(context, page):
    """Slow 4G and a 4× slower CPU on this page (a CDP session of its own, returned)."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", NETWORK_CONDITIONS)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return cdp


NETWORK_CONDITIONS = {
    "offline": False,
    "latency": LATENCY_MS,
    "downloadThroughput": DOWNLOAD_BYTES_PER_S,
    "uploadThroughput": UPLOAD_BYTES_PER_S,
}


class WorkerThrottle:
    """Slow 4G for the service workers: each is a CDP target of its own that a page's session does not
    reach, and Playwright opens no session for a worker. The browser's session attaches to each worker
    (the non-flat way: its messages travel inside Target.sendMessageToTarget) and throttles it, and it
    counts the bytes of the worker's fetches (Network.loadingFinished)."""

    def __init__(self, browser):
        self.cdp = browser.new_browser_cdp_session()
        self.sessions: dict[str, str] = {}  # worker target → session
        self.message_id = 0
        self.bytes = 0
        self.cdp.on("Target.receivedMessageFromTarget", self._received)

    def _received(self, event):
        message = json.loads(event["message"])
        if message.get("method") == "Network.loadingFinished":
            self.bytes += message["params"].get("encodedDataLength", 0)
        elif "error" in message:
            raise SystemExit(f"throttling a service worker failed: {message['error']}")

    def _send(self, session: str, method: str, params: dict) -> None:
        self.message_id += 1
        message = {"id": self.message_id, "method": method, "params": params}
        self.cdp.send("Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps(message)})

    def apply(self) -> int:
        """Throttles every running worker not throttled yet (a stopped worker comes back as a new target);
        the number of running workers, all throttled."""
        running = [t for t in self.cdp.send("Target.getTargets")["targetInfos"] if t["type"] == "service_worker"]
        for target in running:
            if target["targetId"] in self.sessions:
                continue
            attached = self.cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})
            self.sessions[target["targetId"]] = session = attached["sessionId"]
            self._send(session, "Network.enable", {})
            self._send(session, "Network.emulateNetworkConditions", NETWORK_CONDITIONS)
        return len(running)


def new_phone(browser, *, port: int, cookie: str):
    """A browser profile of its own (its own HTTP cache) on a phone screen, signed in as the member."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale="nl-NL",
    )
    context.add_cookies(_cookies(cookie, port))
    return context, context.new_page()


def visit(context, page, url: str, *, port: int, workers: WorkerThrottle) -> dict:
    """Open the URL on a throttled line and CPU; the browser's own timings and the bytes on the wire."""
    cdp = throttle(context, page)
    workers.apply()
    worker_bytes_before = workers.bytes
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
    # What the service worker fetched for this visit went over the same line (the page sees it as 0 bytes).
    transferred["bytes"] += workers.bytes - worker_bytes_before
    metrics.update(transferred)
    # The worker adds X-Koud-Kept-At to a kept copy (the server never sends it): shown from the phone.
    metrics["kept"] = response.header_value("x-koud-kept-at") is not None
    metrics["member"] = response.header_value("x-koud-member")
    cdp.detach()
    return metrics


WORKER_READY_JS = (
    "Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise(r => setTimeout(r, 20000, false))])"
)

# Installed before the tap: the moment of the tap, the moment "Plons toegevoegd!" is on screen, and the
# moment "Foto toegevoegd." is (the photo stored with its dip; the card shows its thumbnail with it).
WATCH_TAP_JS = """
([added, photoAdded]) => {
  window.__tap = { tappedAt: null, shownAt: null, photoAt: null };
  document.addEventListener("click", () => { window.__tap.tappedAt ??= performance.now(); }, { capture: true });
  const seen = (selector, text) => [...document.querySelectorAll(selector)]
    .some((element) => element.textContent.includes(text));
  new MutationObserver((_, observer) => {
    const tap = window.__tap;
    if (tap.tappedAt === null) return;
    const where = "[role=status], [role=alert], .sc-message";
    if (tap.shownAt === null && seen(where, added)) tap.shownAt = performance.now();
    if (tap.photoAt === null && seen(".sc-photo-after", photoAdded)) tap.photoAt = performance.now();
    if (tap.shownAt !== null && tap.photoAt !== null) observer.disconnect();
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}
"""

# Waits in the page for one of the moments above (the page's CSP forbids the eval of wait_for_function).
WAIT_FOR_TAP_JS = """
({ key, timeoutMs }) => new Promise((resolve, reject) => {
  const until = performance.now() + timeoutMs;
  const check = () => {
    if (window.__tap[key] !== null) resolve(true);
    else if (performance.now() > until) reject(new Error(`no ${key} within ${timeoutMs} ms`));
    else setTimeout(check, 20);
  };
  check();
})
"""

UNDO_JS = """
async ({ undoUrl, csrf }) => (await fetch(undoUrl, {
  method: "POST", headers: { "X-CSRFToken": csrf, "X-Requested-With": "XMLHttpRequest", Accept: "application/json" },
})).status
"""


def measure_tap(browser, photo: Path, *, port: int, cookie: str, proxy: HttpsProxy, workers: WorkerThrottle) -> dict:
    """Choose the camera photo, tap "Plons registreren": time to "Plons toegevoegd!", to "Foto toegevoegd.",
    and the bytes sent."""
    context, page = new_phone(browser, port=port, cookie=cookie)
    cdp = throttle(context, page)
    sent_at: list[float] = []  # wall clock (s) when the photo's request left: the shrinking is done by then
    cdp.on(
        "Network.requestWillBeSent",
        lambda event: (
            sent_at.append(event["wallTime"])
            if event["request"]["method"] == "POST" and PHOTO_PATH.search(event["request"]["url"])
            else None
        ),
    )
    page.goto(f"http://{HOST}:{port}/challenge", wait_until="load")
    page.locator("#stampcard-root .sc-root").get_by_role("button", name="Plons registreren").wait_for(timeout=30_000)
    workers.apply()
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    page.evaluate(WATCH_TAP_JS, [ADDED, PHOTO_ADDED])
    sent_before, photos_before = len(proxy.dip_bytes), len(proxy.photo_bytes)
    with page.expect_response(
        lambda r: r.url.endswith(DIP_PATH) and r.request.method == "POST", timeout=120_000
    ) as answer:
        page.get_by_role("button", name="Plons registreren").click()
    response = answer.value
    if response.status != 201:
        raise SystemExit(f"the dip was answered {response.status}: {response.text()[:300]}")
    page.get_by_text(ADDED).first.wait_for(timeout=120_000)
    page.evaluate(WAIT_FOR_TAP_JS, {"key": "shownAt", "timeoutMs": 10_000})
    # The photo follows to the dip: stored when the card says so (and only then is the dip undone).
    page.evaluate(WAIT_FOR_TAP_JS, {"key": "photoAt", "timeoutMs": 120_000})
    tap = page.evaluate("({ ...window.__tap, origin: performance.timeOrigin })")
    dip_id = response.json()["dip"]["id"]
    # Undo the measured dip through the app itself, so the bench's data stays as seeded.
    props = json.loads(page.locator("#stampcard-data").text_content())
    csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
    undone = page.evaluate(
        UNDO_JS, {"undoUrl": props["endpoints"]["undoDip"].replace("/0/", f"/{dip_id}/"), "csrf": csrf}
    )
    if undone != 200:
        raise SystemExit(f"undoing the bench's dip {dip_id} answered {undone}")
    cdp.detach()
    context.close()
    dip_bytes = sum(proxy.dip_bytes[sent_before:])
    photo_bytes = sum(proxy.photo_bytes[photos_before:])
    # Until config/staticfiles.py the card's module ran twice and its second mount dropped the chosen photo.
    if photo_bytes < 50_000 or len(proxy.photo_bytes) - photos_before != 1:
        raise SystemExit(f"the photo did not follow its dip once ({photo_bytes} bytes sent)")
    return {
        "tap_to_added_ms": tap["shownAt"] - tap["tappedAt"],
        "tap_to_photo_ms": tap["photoAt"] - tap["tappedAt"],
        "tap_to_request_ms": sent_at[-1] * 1000 - (tap["origin"] + tap["tappedAt"]),
        "dip_bytes_sent": dip_bytes,
        "photo_bytes_sent": photo_bytes,
        "bytes_sent": dip_bytes + photo_bytes,
        "server_ms": sum(proxy.dip_server_ms[sent_before:]),
        "photo_server_ms": sum(proxy.photo_server_ms[photos_before:]),
    }


def tap_member_cookie(port: int) -> tuple[str, str, str, str]:
    """A load member whose active card has room for a dip (the bench member is one dip from done), signed in:
    her email, cookie, the card's challenge name and her member mark (X-Koud-Member)."""
    import django
    from django.db.models import Count, F

    django.setup()
    from apps.accounts.access import member_mark
    from apps.challenges.models import UserChallenge
    from apps.demo.load_data import BENCH_MEMBER_EMAIL, LOAD_PASSWORD
    from bench.signin import sign_in

    # Its next dip must answer "Plons toegevoegd!" itself: no badge and no completion (their message comes last).
    cards = (
        UserChallenge.objects.filter(is_active=True, completed_at=None, user__email__endswith="@load.koudwater.test")
        .exclude(user__email=BENCH_MEMBER_EMAIL)
        .annotate(dip_count=Count("dips"))
        .filter(dip_count__lt=F("challenge__target_dips") - 1)
        .select_related("user", "challenge")
        .prefetch_related("challenge__badges")
        .order_by("user__email")[:50]
    )
    card = next((c for c in cards if c.dip_count + 1 not in {b.milestone_dips for b in c.challenge.badges.all()}), None)
    if card is None:
        raise SystemExit("no load member has room on her card for a plain dip")
    email = card.user.email
    return email, sign_in(port, email, LOAD_PASSWORD), card.challenge.name, member_mark(card.user.pk)


def summarise(runs: list[dict]) -> dict:
    keys = ("html_ms", "fcp_ms", "lcp_ms", "load_ms", "bytes", "requests")
    return {key: statistics.median(run[key] for run in runs if run.get(key) is not None) for key in keys}


def measure_page(browser, url: str, *, port: int, cookie: str, runs: int, workers: WorkerThrottle) -> dict:
    cold = []
    for _ in range(runs):
        # A first visit: a fresh profile, nothing cached.
        context, page = new_phone(browser, port=port, cookie=cookie)
        cold.append(visit(context, page, url, port=port, workers=workers))
        context.close()
    # The next visits: one profile that has been here before, with the service worker installed and in
    # control (its precache holds the islands), and the browser's cache of the hashed static files.
    context, page = new_phone(browser, port=port, cookie=cookie)
    page.goto(f"http://{HOST}:{port}{url}", wait_until="load")
    if not page.evaluate(WORKER_READY_JS):
        raise SystemExit(f"{url}: the service worker did not become active")
    page.reload(wait_until="load")
    if page.evaluate("navigator.serviceWorker.controller?.scriptURL ?? null") is None:
        raise SystemExit(f"{url}: the page is not controlled by the service worker")
    if not workers.apply():
        raise SystemExit(f"{url}: no service worker to throttle")
    warm = []
    for _ in range(runs):
        page.goto("about:blank")
        warm.append(visit(context, page, url, port=port, workers=workers))
    context.close()
    return {"cold": summarise(cold), "warm": summarise(warm)}


# Resolves (with the page's clock) once the worker keeps `path` as it shows a kept page at once: asked after
# this phone's last write (frontend/src/sw/pages.ts keptToShowAtOnce) and after `afterMs` (epoch ms).
WAIT_FOR_KEPT_JS = """
({ path, afterMs, timeoutMs }) => new Promise((resolve, reject) => {
  const until = performance.now() + timeoutMs;
  const check = async () => {
    const names = (await caches.keys()).filter((name) => name.startsWith("koud-pages-"));
    if (names.length === 1) {
      const cache = await caches.open(names[0]);
      const kept = await cache.match(path, { ignoreVary: true });
      const written = await cache.match("/__koud/written");
      const keptAt = Number(kept?.headers.get("X-Koud-Kept-At") ?? 0);
      const writtenAt = written ? Number(await written.text()) : 0;
      if (keptAt > writtenAt && keptAt > afterMs) return resolve(performance.now());
    }
    if (performance.now() > until) reject(new Error(`${path} not kept within ${timeoutMs} ms`));
    else setTimeout(check, 20);
  };
  check();
})
"""

# Before the page's own scripts: marks the active card's count line for Element Timing, so the browser says when
# the count was painted.
MARK_COUNT_JS = """
new MutationObserver(() => {
  for (const line of document.querySelectorAll(".challenge-summary p.muted")) {
    if (/\\d+ van \\d+ plonsen gedaan/.test(line.textContent) && !line.hasAttribute("elementtiming")) {
      line.setAttribute("elementtiming", "dip-count");
    }
  }
}).observe(document, { subtree: true, childList: true });
"""

COUNT_PAINTED_JS = """
() => new Promise((resolve) => {
  let painted = null;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier === "dip-count") painted ??= entry.renderTime || entry.loadTime;
    }
  }).observe({ type: "element", buffered: true });
  setTimeout(() => resolve(painted), 50);
})
"""


def shown_count(page, card_name: str) -> int | None:
    """The count on /dashboard's summary of the member's active card ("12 van 99 plonsen gedaan")."""
    summary = page.locator(".challenge-summary").filter(has=page.get_by_role("heading", name=card_name, exact=True))
    found = re.search(r"(\d+) van \d+ plonsen gedaan", summary.first.text_content(timeout=10_000) or "")
    return int(found.group(1)) if found else None


def measure_visit_after_dip(
    browser,
    photo: Path | None,
    *,
    port: int,
    cookie: str,
    card_name: str,
    mark: str,
    runs: int,
    workers: WorkerThrottle,
) -> dict:
    """Tap a dip (with `photo`: and wait for "Foto toegevoegd.") on /challenge with the service worker in control,
    wait for "Plons toegevoegd!" and for the worker to keep the refreshed /dashboard, then open /dashboard: its
    timings, and whether it shows the new count."""
    context, page = new_phone(browser, port=port, cookie=cookie)
    context.add_init_script(MARK_COUNT_JS)
    page.goto(f"http://{HOST}:{port}/dashboard", wait_until="load")
    if not page.evaluate(WORKER_READY_JS):
        raise SystemExit("visit after a dip: the service worker did not become active")
    page.reload(wait_until="load")
    if page.evaluate("navigator.serviceWorker.controller?.scriptURL ?? null") is None:
        raise SystemExit("visit after a dip: the page is not controlled by the service worker")
    visits = []
    for _ in range(runs):
        cdp = throttle(context, page)
        page.goto(f"http://{HOST}:{port}/challenge", wait_until="load")
        tap_button = page.locator("#stampcard-root .sc-root").get_by_role("button", name="Plons registreren")
        tap_button.wait_for(timeout=30_000)
        workers.apply()
        props = json.loads(page.locator("#stampcard-data").text_content())
        if photo is not None:
            page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
        page.evaluate(WATCH_TAP_JS, [ADDED, PHOTO_ADDED])
        with page.expect_response(
            lambda r: r.url.endswith(DIP_PATH) and r.request.method == "POST", timeout=120_000
        ) as answer:
            tap_button.click()
        if answer.value.status != 201:
            raise SystemExit(f"the dip was answered {answer.value.status}: {answer.value.text()[:300]}")
        dip = answer.value.json()
        page.evaluate(WAIT_FOR_TAP_JS, {"key": "shownAt", "timeoutMs": 60_000})
        if photo is not None:  # the photo's request is a write of its own
            page.evaluate(WAIT_FOR_TAP_JS, {"key": "photoAt", "timeoutMs": 120_000})
        tap = page.evaluate("({ ...window.__tap, origin: performance.timeOrigin })")
        tapped_at = tap["origin"] + tap["tappedAt"]  # epoch ms, the worker's clock too
        # The state the next visit depends on: the worker kept /dashboard asked after the last write. Not within
        # 20 s: the visit is measured all the same (then from the network) and reported as not kept.
        try:
            kept_at = page.evaluate(WAIT_FOR_KEPT_JS, {"path": "/dashboard", "afterMs": tapped_at, "timeoutMs": 20_000})
        except PlaywrightError:
            kept_at = None
        cdp.detach()
        # Opened afresh, as the next visits above (the member comes back to the app): the unloading of /challenge
        # is not in its time.
        page.goto("about:blank")
        measured = visit(context, page, "/dashboard", port=port, workers=workers)
        measured["count_ms"] = page.evaluate(COUNT_PAINTED_JS)
        measured["count"] = shown_count(page, card_name)
        # The worker fetches the page again behind the kept one and reloads the page when the server's differs
        # (frontend/src/pwa/newer-page.ts): the count must stay. Its message follows the keeping: a second to land.
        shown_origin = page.evaluate("performance.timeOrigin")
        page.evaluate(WAIT_FOR_KEPT_JS, {"path": "/dashboard", "afterMs": shown_origin, "timeoutMs": 60_000})
        page.wait_for_timeout(1000)
        page.wait_for_load_state("load")
        measured["reloaded"] = page.evaluate("performance.timeOrigin") != shown_origin
        measured["count_after_refresh"] = shown_count(page, card_name)
        measured.update(
            new_count=dip["dipCount"],
            tap_to_added_ms=tap["shownAt"] - tap["tappedAt"],
            tap_to_photo_ms=None if photo is None else tap["photoAt"] - tap["tappedAt"],
            tap_to_kept_ms=None if kept_at is None else kept_at - tap["tappedAt"],
        )
        measured["count_correct"] = (
            measured["count"] == measured["count_after_refresh"] == dip["dipCount"] and measured["member"] == mark
        )
        visits.append(measured)
        # Undo the measured dip through the app itself, so the bench's data stays as seeded.
        csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
        undo_url = props["endpoints"]["undoDip"].replace("/0/", f"/{dip['dip']['id']}/")
        if (undone := page.evaluate(UNDO_JS, {"undoUrl": undo_url, "csrf": csrf})) != 200:
            raise SystemExit(f"undoing the bench's dip {dip['dip']['id']} answered {undone}")
    context.close()
    keys = (
        "html_ms", "fcp_ms", "lcp_ms", "count_ms", "bytes", "requests", "tap_to_added_ms", "tap_to_photo_ms",
        "tap_to_kept_ms",
    )  # fmt: skip
    medians = {key: [v[key] for v in visits if v.get(key) is not None] for key in keys}
    return {
        **{key: statistics.median(values) if values else None for key, values in medians.items()},
        "kept": all(v["kept"] for v in visits),
        "count_correct": all(v["count_correct"] for v in visits),
        "runs": visits,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cookie", required=True, help="the Cookie header of a signed-in member")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--taps", type=int, default=3, help="photo dips measured (each undone afterwards)")
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
    proxy = HttpsProxy(args.port)
    photo_dir = tempfile.TemporaryDirectory()
    photo_dir_path = Path(photo_dir.name)
    photos = {"photo_dip": camera_photo(), "detailed_photo_dip": detailed_photo()}
    tap_email, tap_cookie, tap_card, tap_mark = tap_member_cookie(args.port)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            # As the browser tests run it: this machine has no GPU for headless Chromium's canvas.
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
            args=["--disable-gpu"],
        )
        workers = WorkerThrottle(browser)
        for name, content in photos.items():
            photo = photo_dir_path / name / "IMG_2041.jpg"
            photo.parent.mkdir()
            photo.write_bytes(content)
            taps = [
                measure_tap(browser, photo, port=proxy.port, cookie=tap_cookie, proxy=proxy, workers=workers)
                for _ in range(args.taps)
            ]
            median = {key: statistics.median(t[key] for t in taps) for key in taps[0]}
            results[name] = {
                "member": tap_email,
                "photo_bytes": photo.stat().st_size,
                **median,
                "max_photo_bytes_sent": max(t["photo_bytes_sent"] for t in taps),
                "runs": taps,
            }
            dip = results[name]
            print(
                f"   {name:18} 12 MP photo of {dip['photo_bytes'] / 1024:.0f} KB: tap to '{ADDED}' "
                f"{dip['tap_to_added_ms']:.0f} ms (the dip: {dip['dip_bytes_sent'] / 1024:.1f} KB, "
                f"server {dip['server_ms']:.0f} ms); tap to photo stored ('{PHOTO_ADDED}') "
                f"{dip['tap_to_photo_ms']:.0f} ms (shrinking until its request left: "
                f"{dip['tap_to_request_ms']:.0f} ms, server {dip['photo_server_ms']:.0f} ms), "
                f"photo {dip['photo_bytes_sent'] / 1024:.1f} KB sent (most {dip['max_photo_bytes_sent'] / 1024:.1f} KB)"
            )
        # Goal 3: the visit after a plain dip, and after a dip with the plain photo (its request is a write too).
        plain_photo = photo_dir_path / "photo_dip" / "IMG_2041.jpg"
        for name, chosen in (("visit_after_dip", None), ("visit_after_photo_dip", plain_photo)):
            after = measure_visit_after_dip(
                browser,
                chosen,
                port=proxy.port,
                cookie=tap_cookie,
                card_name=tap_card,
                mark=tap_mark,
                runs=args.runs,
                workers=workers,
            )
            results[name] = {"member": tap_email, **after}
            counts = ", ".join(f"{v['count']}/{v['count_after_refresh']} of {v['new_count']}" for v in after["runs"])
            kept = "never" if after["tap_to_kept_ms"] is None else f"{after['tap_to_kept_ms']:.0f} ms"
            print(
                f"   {name:21} tap to '{ADDED}' {after['tap_to_added_ms']:.0f} ms, to /dashboard kept again {kept}; "
                f"then HTML {after['html_ms']:.0f} ms, FCP {after['fcp_ms']:.0f} ms, LCP {after['lcp_ms']:.0f} ms, "
                f"count painted {after['count_ms'] or 0:.0f} ms, {after['bytes'] / 1024:.1f} KB, "
                f"{'the kept copy' if after['kept'] else '**not always the kept copy**'}; count shown/after the "
                f"refresh/new: {counts} ({'correct' if after['count_correct'] else '**WRONG**'})"
            )
        for url in URLS:
            measured = measure_page(browser, url, port=proxy.port, cookie=args.cookie, runs=args.runs, workers=workers)
            results["pages"][url] = measured
            cold, warm = measured["cold"], measured["warm"]
            print(
                f"   {url:12} first visit: HTML {cold['html_ms']:.0f} ms, FCP {cold['fcp_ms']:.0f} ms, "
                f"LCP {cold['lcp_ms']:.0f} ms, {cold['bytes'] / 1024:.1f} KB; next visit: "
                f"LCP {warm['lcp_ms']:.0f} ms, {warm['bytes'] / 1024:.1f} KB"
            )
        browser.close()
    proxy.close()
    photo_dir.cleanup()
    with open(args.out, "w") as handle:
        json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
