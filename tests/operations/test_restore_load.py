"""A restore whose load fails after every check passed leaves the database and the media folder exactly as they
were (apps/operations/database_swap.py): the dump here is a real dump of this app's tables whose rows break a
constraint pg_restore makes after the data, so the load stops halfway through."""

import subprocess
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from apps.accounts.models import User
from apps.operations.backup import BackupError
from apps.operations.refusals import OperationsRefusal
from apps.operations.restore import backup_restore
from tests.factories import UserFactory

from .drill import database_recreate, database_url
from .test_restore_checks import PHOTO, _archive, _state, real_backup  # noqa: F401 - real_backup: a fixture

pytestmark = pytest.mark.django_db(transaction=True)


def _dump_that_breaks_halfway(database: bytes, scratch: Path) -> bytes:
    """The test database's own dump, loaded into a database of its own, with one role of a member who does not
    exist (foreign keys off while it is written), dumped again: its data loads, its foreign key then fails."""
    name = f"{connection.settings_dict['NAME']}_halfway"
    url = database_url(connection.settings_dict, name=name)
    (scratch / "echt.dump").write_bytes(database)
    database_recreate(connection.settings_dict, name)
    try:
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={url}", str(scratch / "echt.dump")], check=True)
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("SET session_replication_role = replica")
            other.execute("INSERT INTO accounts_userrole (user_id, role, created_at) VALUES (424242, 'admin', now())")
        dump = scratch / "halverwege.dump"
        subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", url], check=True, capture_output=True)
    finally:
        database_recreate(connection.settings_dict, name, create=False)
    return dump.read_bytes()


def _databases() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT datname FROM pg_database")  # noqa: S608 - a test's own look
        return {name for (name,) in cursor.fetchall()}


def test_a_load_that_fails_halfway_leaves_the_database_and_the_media_folder_as_they_were(
    real_backup,  # noqa: F811 - the fixture imported above
    tmp_path,
    settings,
):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's backup API writes the target in one transaction")
    manifest, database = real_backup
    broken = _dump_that_breaks_halfway(database, tmp_path)
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "media" / "dip_photos").mkdir(parents=True)
    (tmp_path / "media" / "dip_photos" / "oud.jpg").write_bytes(b"oude foto")
    members = {user.email for user in UserFactory.create_batch(2)}
    databases = _databases()
    before = _state(tmp_path)

    with pytest.raises(BackupError) as refused:  # --force: past the checks of the target, onto live data
        backup_restore(archive=_archive(tmp_path / "archief.tar", manifest, broken, PHOTO), force=True)

    assert refused.value.code == OperationsRefusal.TOOL_FAILED
    assert "pg_restore is mislukt" in refused.value.message and "accounts_userrole" in refused.value.message
    assert _state(tmp_path) == before  # the photo of the archive was not written
    assert set(User.objects.values_list("email", flat=True)) == members
    assert _databases() == databases  # the half-loaded one is gone
