"""Static files in production: Django's hashed names for our own files, Vite's own names for Vite's build.

Vite writes its build (frontend/dist, one of STATICFILES_DIRS) under `assets/` with a content hash in
every file name, and its chunks import each other by those names (`import … from "./mount-KyJsQf9d.js"`);
the service worker precaches the same names. Django's manifest storage hashed them a second time, so a
page loaded its island as `stampcard-BAvIzced.504e86e0c76e.js` while the island's lazy chunks imported
`stampcard-BAvIzced.js`: the module ran twice, the second run mounted a new stamp card over the first
(a photo chosen in between was gone), and React came over the wire twice.
"""

import re

from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage

VITE_ASSETS = "assets/"
# Django's manifest puts the first 12 hex digits of the file's MD5 before the extension.
DJANGO_HASHED = re.compile(r"\.[0-9a-f]{12}\.[^./]+$")


def is_vite_asset(name: str) -> bool:
    return name.startswith(VITE_ASSETS)


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage that leaves Vite's already hashed files their own names.

    A name's URL is looked up in the manifest once per process: a page asks for about twenty on every render
    (base.html), and each lookup joins and quotes the URL anew (issue 37: a few percent of a page's CPU)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._urls: dict[tuple[str, bool], str] = {}

    def stored_name(self, name):
        if is_vite_asset(name):
            return name
        return super().stored_name(name)

    def url(self, name, force=False):
        key = (name, force or settings.DEBUG)  # DEBUG: the plain name, not the manifest's
        found = self._urls.get(key)
        if found is None:
            found = self._urls[key] = super().url(name, force)
        return found

    def post_process(self, *args, **kwargs):
        # collectstatic writes a new manifest: no URL of the old one is kept.
        self._urls.clear()
        yield from super().post_process(*args, **kwargs)
        self._urls.clear()


def immutable_file_test(path: str, url: str) -> bool:
    """WhiteNoise's "cache forever" test (WHITENOISE_IMMUTABLE_FILE_TEST): a name with Django's hash, or
    any file of Vite's build. Its own test only knows Django's names, so Vite's files got 60 seconds."""
    if not url.startswith(settings.STATIC_URL):
        return False
    name = url[len(settings.STATIC_URL) :]
    return is_vite_asset(name) or bool(DJANGO_HASHED.search(name))
