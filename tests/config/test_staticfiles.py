"""Production's static files: Vite's build is served under the names its chunks import each other by."""

from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.test import override_settings

from config.settings.base import STORAGES
from config.staticfiles import immutable_file_test

ISLAND = "assets/stampcard-AbCd1234.js"
SHARED_CHUNK = "assets/mount-Zz9_xY12.js"


def test_a_vite_chunk_keeps_its_own_name_and_our_own_files_get_djangos_hash(tmp_path):
    source = tmp_path / "dist"
    (source / "assets").mkdir(parents=True)
    # As Vite writes them: the island imports the shared chunk by the chunk's own (hashed) name.
    (source / ISLAND).write_text('import{a as e}from"./mount-Zz9_xY12.js";e();\n')
    (source / SHARED_CHUNK).write_text("export function a(){}\n")
    (source / "css").mkdir()
    (source / "css" / "app.css").write_text("body{margin:0}\n")
    storages = {**STORAGES, "staticfiles": {"BACKEND": "config.staticfiles.StaticFilesStorage"}}
    with override_settings(
        STORAGES=storages, STATIC_ROOT=tmp_path / "root", STATICFILES_DIRS=[source], STATIC_URL="/static/", DEBUG=False
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        island_url = staticfiles_storage.url(ISLAND)
        chunk_url = staticfiles_storage.url(SHARED_CHUNK)
        css_url = staticfiles_storage.url("css/app.css")

        # The page loads the island by the name the other chunks import it by: one module, run once.
        assert island_url == "/static/" + ISLAND
        assert chunk_url == "/static/" + SHARED_CHUNK
        assert (tmp_path / "root" / ISLAND).read_text().startswith('import{a as e}from"./mount-Zz9_xY12.js"')
        assert css_url.startswith("/static/css/app.") and css_url != "/static/css/app.css"

        # Both kinds are cached for good; an unhashed name of our own is not.
        assert immutable_file_test("", island_url)
        assert immutable_file_test("", css_url)
        assert not immutable_file_test("", "/static/css/app.css")
        assert not immutable_file_test("", "/sw.js")


def test_a_url_is_looked_up_once_and_a_new_manifest_is_read_again(tmp_path):
    source = tmp_path / "dist"
    (source / "css").mkdir(parents=True)
    (source / "css" / "app.css").write_text("body{margin:0}\n")
    storages = {**STORAGES, "staticfiles": {"BACKEND": "config.staticfiles.StaticFilesStorage"}}
    with override_settings(
        STORAGES=storages, STATIC_ROOT=tmp_path / "root", STATICFILES_DIRS=[source], STATIC_URL="/static/", DEBUG=False
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        first = staticfiles_storage.url("css/app.css")
        assert staticfiles_storage.url("css/app.css") == first
        (source / "css" / "app.css").write_text("body{margin:1px}\n")
        call_command("collectstatic", interactive=False, verbosity=0)
        changed = staticfiles_storage.url("css/app.css")
        assert changed != first and changed.startswith("/static/css/app.")
        with override_settings(DEBUG=True):
            assert staticfiles_storage.url("css/app.css") == "/static/css/app.css"
        assert staticfiles_storage.url("css/app.css") == changed
