"""Front-end weight, read from the Vite manifest: the gzipped JavaScript each page loads.

Pages without an island load no JavaScript but the service worker's registration (1 KB); the
challenge page stays within 81 KB and the admin page within 90 KB (gzipped, React included). The challenge
page's budget was 75 KB until the dip details, the offline queue (IndexedDB) and the badge moment came in
(76.7 KB measured; the details' fields and dialogs already load after the card), and 78 KB until the card
got its reducer, register machine, error boundary and the islands' shared feedback, sign-in and
single-flight modules (issue 23, 79.0 KB measured; the bundler now puts React in a chunk of its own), and 80 KB
until one swim, one stamp (the confirmed answer), "Vergeten te registreren?", queued taps that name their member
and the refusal codes came in (80.1 KB measured, with the photo shrinking loaded only once a photo is chosen;
80.5 KB with the photo sent after its dip, whose sending part loads with the shrinking): see docs/performance.md."""

import gzip
import json
import re
from pathlib import Path

import pytest

from tests.pwa import SW_REGISTRATION, without_sw_registration

DIST = Path(__file__).resolve().parents[1] / "frontend" / "dist"
BUDGETS_KB = {"src/islands/stampcard.tsx": 81, "src/islands/admin.tsx": 90}
pytestmark = pytest.mark.django_db


def manifest() -> dict:
    path = DIST / "manifest.json"
    if not path.exists():
        pytest.fail("frontend/dist/manifest.json is missing: run `make frontend` (make test does)")
    return json.loads(path.read_text())


def javascript_of(entry: str, chunks: dict) -> set[str]:
    """The entry's file and every chunk it imports statically, transitively."""
    seen: set[str] = set()
    stack = [entry]
    while stack:
        key = stack.pop()
        chunk = chunks[key]
        if chunk["file"] in seen:
            continue
        seen.add(chunk["file"])
        stack.extend(chunk.get("imports", []))
    return seen


def gzipped_kb(files: set[str]) -> float:
    return sum(len(gzip.compress((DIST / name).read_bytes(), compresslevel=9)) for name in files) / 1024


@pytest.mark.parametrize("entry", sorted(BUDGETS_KB))
def test_island_pages_stay_within_their_javascript_budget(entry):
    chunks = manifest()
    assert entry in chunks, f"{entry} is not built"
    weight = gzipped_kb(javascript_of(entry, chunks))
    assert weight <= BUDGETS_KB[entry], f"{entry}: {weight:.1f} KB gzipped > {BUDGETS_KB[entry]} KB"


def test_every_island_entry_is_measured_or_small():
    chunks = manifest()
    for key, chunk in chunks.items():
        if chunk.get("isEntry") and key not in BUDGETS_KB:
            assert gzipped_kb(javascript_of(key, chunks)) <= 75, key


@pytest.mark.parametrize("path", ["/", "/auth", "/dashboard", "/bestaat-niet"])
def test_pages_without_an_island_load_no_javascript(client, member, path):
    if path == "/dashboard":
        client.force_login(member)
    html = client.get(path).content.decode()
    registration = SW_REGISTRATION.findall(html)
    assert len(registration) == 1, path
    html = without_sw_registration(html)
    if path == "/auth":
        # Passkey sign-in: allauth's own small static scripts and our Dutch passkey errors, no island.
        passkey_scripts = r'<script src="/static/((mfa|account)/js/[\w-]+|js/passkey-errors)\.js" defer></script>'
        html = re.sub(passkey_scripts, "", html)
    assert not re.search(r"<script(?![^>]*application/json)[^>]*>", html), path
    assert "modulepreload" not in html


def test_the_service_worker_registration_stays_small():
    chunks = manifest()
    assert gzipped_kb(javascript_of("src/pwa/register.ts", chunks)) <= 1


def test_the_challenge_page_loads_only_its_own_island(client, member):
    from apps.challenges.models import Challenge
    from apps.challenges.services.cards import challenge_start

    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    client.force_login(member)
    html = client.get("/challenge").content.decode()
    scripts = re.findall(r'<script type="module"[^>]*src="([^"]+)"', html)
    chunks = manifest()
    expected = {"/static/" + chunks[entry]["file"] for entry in ["src/islands/stampcard.tsx", "src/pwa/register.ts"]}
    assert set(scripts) == expected
