"""The README guides and docs/ holds the details: every relative link and anchor resolves, and the pages keep
their shape (a README a newcomer reads to the end, a performance page of results, not of sessions)."""

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250
PERFORMANCE_MAX_LINES = 300
# bench/report.py rewrites what stands between these markers on every `make bench`: the run's length, not the page's.
BENCH_BLOCK = re.compile(r"<!-- bench:begin -->.*?<!-- bench:end -->", re.S)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text outside code blocks: a `# comment` in a shell block is no heading, a `[x](y)` there no link."""
    return FENCE.sub("", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters of any script kept), spaces to -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(_prose(path.read_text())):
        slug = _slug(heading)
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def links(path: Path) -> list[str]:
    return [target for target in LINK.findall(_prose(path.read_text())) if not re.match(r"[a-z]+:|/", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page):
    broken = []
    for target in links(page):
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor in {linked.relative_to(ROOT)}")
    assert not broken, broken


def test_the_pages_are_linked_to_each_other():
    readme_targets = {target.partition("#")[0] for target in links(ROOT / "README.md")}
    for name in ("docs/operations.md", "docs/architecture.md", "docs/performance.md"):
        assert name in readme_targets, f"the README does not link {name}"


def test_the_readme_stays_a_guide():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; details go to docs/"


def test_the_performance_page_stays_a_results_page():
    text = (ROOT / "docs" / "performance.md").read_text()
    assert BENCH_BLOCK.search(text), "bench/report.py needs its markers in docs/performance.md"
    lines = BENCH_BLOCK.sub("", text).splitlines()
    assert len(lines) <= PERFORMANCE_MAX_LINES, f"docs/performance.md has {len(lines)} lines; history stays in git"
    assert "## Machinery kept and why" in text


def test_the_slugs_are_githubs():
    assert _slug("Settings (`.env`)") == "settings-env"
    assert _slug("Backups and restore (Back-up en herstel)") == "backups-and-restore-back-up-en-herstel"
    assert _slug("One swim, one stamp (Eén plons, één stempel)") == "one-swim-one-stamp-eén-plons-één-stempel"
