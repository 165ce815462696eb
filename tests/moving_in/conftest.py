"""A database in the original app's shape, built for each test beside the app's own test database (on the same
PostgreSQL server, under its own name) and dropped afterwards, and the bucket as a folder."""

import io
import os

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command

from .source_club import fill_small_club, source_database_create, source_database_drop

pytestmark = pytest.mark.django_db


def _server_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("the import reads a PostgreSQL database: set DATABASE_URL to a PostgreSQL server")
    return url


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def source_db():
    server = _server_url()
    name, url = source_database_create(server)
    yield url
    source_database_drop(server, name)


@pytest.fixture
def photo_dir(tmp_path):
    path = tmp_path / "dip_photos"
    path.mkdir()
    return path


@pytest.fixture
def small_club(source_db, photo_dir):
    club = fill_small_club(source_db, photo_dir)
    club.url = source_db
    return club


@pytest.fixture
def run_import():
    """call_command with the output as text."""

    def run(*args, **options):
        # One photo process: worker processes cannot see the test's uncommitted rows (test_photo_workers.py
        # runs them on committed data).
        options.setdefault("photo_workers", 1)
        out = io.StringIO()
        call_command("import_supabase", *args, stdout=out, **options)
        return out.getvalue()

    return run


@pytest.fixture
def photo_storage_files():
    def files() -> set[str]:
        root = settings.STORAGES["photos"]["OPTIONS"].get("location")
        if root is None or not os.path.isdir(root):
            return set()
        return {os.path.join(d, f) for d, _, names in os.walk(root) for f in names}

    return files
