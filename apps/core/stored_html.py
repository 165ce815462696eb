"""How cached pages and sections are kept in the cache: their UTF-8 bytes, compressed with Zstandard at its
fastest level. A page is stored on the request that had to render it, and read on every visit, so both ways
count: on /samen's 57 KB, zstd takes a quarter of zlib's fastest CPU to compress and a third to read back, for
smaller results (5.4 KB, not 6.3 KB). `STORED_AS` is part of the release (apps/core/page_cache.py), so a deploy
that changes the format never reads what the last one stored."""

import threading

import zstandard

STORED_AS = "zstd-1"
_LEVEL = 1

# zstd's contexts are reused (making one costs more than compressing a section), one per thread: an instance
# must not be used by two threads at once (gunicorn may run threads, GUNICORN_THREADS).
_contexts = threading.local()


def compressed(html: bytes) -> bytes:
    compressor = getattr(_contexts, "compressor", None)
    if compressor is None:
        compressor = _contexts.compressor = zstandard.ZstdCompressor(level=_LEVEL)
    return compressor.compress(html)


def decompressed(stored: bytes) -> bytes:
    decompressor = getattr(_contexts, "decompressor", None)
    if decompressor is None:
        decompressor = _contexts.decompressor = zstandard.ZstdDecompressor()
    return decompressor.decompress(stored)
