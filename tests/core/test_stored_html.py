"""Cached pages and sections are kept compressed with zstd (apps/core/stored_html.py); the format is part of the
release, so a deploy that changes it never reads what the last one stored."""

import zlib
from concurrent.futures import ThreadPoolExecutor

from apps.core import page_cache
from apps.core.stored_html import compressed, decompressed

PAGE = ("<li>Plonsafspraak · Steiger, 07:30 → Wie gaan er: Marit, Otto</li>\n" * 400).encode()


def test_a_page_comes_back_byte_for_byte_and_smaller_than_zlib_makes_it():
    stored = compressed(PAGE)
    assert decompressed(stored) == PAGE
    assert len(stored) < len(zlib.compress(PAGE, 1))


def test_threads_compressing_at_once_each_get_their_own_page_back():
    pages = [PAGE + f"<p>{number}</p>".encode() * number for number in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        back = list(pool.map(lambda page: decompressed(compressed(page)), pages))
    assert back == pages


def test_the_storage_format_is_part_of_the_release(monkeypatch):
    page_cache.release.cache_clear()
    now = page_cache.release()
    monkeypatch.setattr(page_cache, "STORED_AS", "zlib-1")
    page_cache.release.cache_clear()
    try:
        assert page_cache.release() != now
    finally:
        page_cache.release.cache_clear()
