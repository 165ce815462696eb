"""`restore` reads the whole archive before it touches anything (apps/operations/archive_check.py, dump_check.py).

Each archive here is a real backup of the test database with one thing changed, restored with --force (past
the checks of the target) onto a database with members and a media folder with a photo: the refusal says in
Dutch what is wrong, and the members, the media folder and everything beside it are as they were. The database
restore itself is replaced by a tripwire: reaching it is the failure (and a real pg_restore would wait on this
test's own transaction).
"""

import io
import json
import os
import sqlite3
import stat
import subprocess
import tarfile
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from apps.accounts.models import User
from apps.operations import restore as restore_module
from apps.operations.backup import BackupError, backup_create
from apps.operations.refusals import OperationsRefusal
from apps.operations.restore import backup_restore
from tests.factories import UserFactory

from .drill import database_recreate, database_url

NOTHING_CHANGED = "Er is niets veranderd aan de database en de mediamap."


@pytest.fixture(scope="module")
def real_backup(django_db_setup, django_db_blocker, tmp_path_factory):
    """The manifest and database file of a real backup of the (empty) test database."""
    folder = tmp_path_factory.mktemp("backups")
    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=folder / "media"):
        result = backup_create(folder=folder, keep=1)
    with tarfile.open(result.path) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
        database = tar.extractfile(manifest["database"]["file"]).read()
    return manifest, database


@pytest.fixture
def target(db, tmp_path, settings, monkeypatch):
    """Two members and a media folder with a photo; the database restore is a tripwire."""
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "media" / "dip_photos").mkdir(parents=True)
    (tmp_path / "media" / "dip_photos" / "oud.jpg").write_bytes(b"oude foto")
    UserFactory.create_batch(2)

    def tripwire(dump):
        raise AssertionError("the database was touched")

    monkeypatch.setattr(restore_module, "_database_restore", tripwire)
    return tmp_path


def _state(root: Path) -> tuple[int, dict[str, bytes]]:
    """The members and every file under `root` (the media folder and what lies beside it) with its bytes."""
    files = {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
    return User.objects.count(), {name: data for name, data in files.items() if not name.endswith(".tar")}


def _entry(
    name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, len(data), link
    return info, data


def _archive(path: Path, manifest: dict, database: bytes, *entries: tuple[tarfile.TarInfo, bytes]) -> Path:
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in [_entry("manifest.json", data=json.dumps(manifest).encode()),
                           _entry(manifest["database"]["file"], data=database), *entries]:  # fmt: skip
            tar.addfile(info, io.BytesIO(data))
    return path


ABSOLUTE = Path("/tmp/koud-restore-absoluut.txt")  # noqa: S108 - an attack's own name
PHOTO = _entry("media/dip_photos/nieuw.jpg", data=b"nieuwe foto")
BAD_ENTRIES = {
    "climbs out of media/": [PHOTO, _entry("media/../buiten.txt", data=b"ontsnapt")],
    "an absolute name": [PHOTO, _entry(str(ABSOLUTE), data=b"ontsnapt")],
    "a name outside media/": [_entry("notities.txt", data=b"x")],
    "a name media// does not normalise": [_entry("media//dip_photos/x.jpg", data=b"x")],
    "a symlink": [PHOTO, _entry("media/dip_photos/link.jpg", tarfile.SYMTYPE, link="/etc/passwd")],
    "a hard link": [PHOTO, _entry("media/dip_photos/hard.jpg", tarfile.LNKTYPE, link="media/dip_photos/nieuw.jpg")],
    "a device": [_entry("media/dip_photos/apparaat", tarfile.CHRTYPE)],
    "a fifo": [_entry("media/dip_photos/pijp", tarfile.FIFOTYPE)],
    "a directory": [_entry("media/dip_photos", tarfile.DIRTYPE)],
    "a second manifest": [_entry("manifest.json", data=b"{}")],
    "an export the backup leaves out": [_entry("media/exports/1-abc.zip", data=b"PK")],
}


@pytest.mark.parametrize("case", list(BAD_ENTRIES))
def test_an_archive_with_a_bad_entry_changes_nothing(case, real_backup, target):
    manifest, database = real_backup
    archive = _archive(target / "archief.tar", manifest, database, *BAD_ENTRIES[case])
    before = _state(target)
    with pytest.raises(BackupError) as refused:
        backup_restore(archive=archive, force=True)
    assert refused.value.code == OperationsRefusal.UNEXPECTED_MEMBER
    name = BAD_ENTRIES[case][-1][0].name
    assert "De back-up bevat " in refused.value.message and repr(name) in refused.value.message
    assert NOTHING_CHANGED in refused.value.message and "Neem een andere back-up" in refused.value.message
    assert _state(target) == before  # not even the good photo before the bad entry
    assert not ABSOLUTE.exists()


def _changed(manifest: dict, change) -> dict:
    manifest = json.loads(json.dumps(manifest))
    change(manifest)
    return manifest


BAD_MANIFESTS = {
    "no migrations": (lambda m: m.pop("migrations"), "'migrations' ontbreekt"),
    "migrations a list": (lambda m: m.update(migrations=["0001_initial"]), "'migrations' is geen object"),
    "a migration not a name": (lambda m: m["migrations"].update(accounts=[1]), "'migrations' heeft voor 'accounts'"),
    "counts not numbers": (lambda m: m["counts"].update(members="veel"), "'counts' heeft geen aantal 'members'"),
    "no counts": (lambda m: m.pop("counts"), "'counts' ontbreekt"),
    "a database file elsewhere": (lambda m: m["database"].update(file="../database.dump"), "'database' noemt geen"),
    "media not said": (lambda m: m["media"].pop("included"), "'media' zegt niet"),
}


@pytest.mark.parametrize("case", list(BAD_MANIFESTS))
def test_a_manifest_with_wrong_keys_is_refused_in_dutch_not_with_a_traceback(case, real_backup, target):
    manifest, database = real_backup
    change, said = BAD_MANIFESTS[case]
    archive = _archive(target / "archief.tar", _changed(manifest, change), database)
    before = _state(target)
    with pytest.raises(CommandError) as refused:  # what the operator sees
        call_command("restore", str(archive), "--force")
    assert "De manifest.json in archief.tar klopt niet: " + said in str(refused.value)
    assert NOTHING_CHANGED in str(refused.value)
    assert _state(target) == before


def test_counts_that_differ_from_the_dump_are_refused(real_backup, target):
    manifest, database = real_backup
    more = _changed(manifest, lambda m: m["counts"].update(members=m["counts"]["members"] + 3))
    before = _state(target)
    with pytest.raises(BackupError) as refused:
        backup_restore(archive=_archive(target / "archief.tar", more, database, PHOTO), force=True)
    assert refused.value.code == OperationsRefusal.ARCHIVE_TAMPERED
    assert "kloppen niet met de database in de back-up" in refused.value.message
    assert NOTHING_CHANGED in refused.value.message
    assert _state(target) == before


def test_a_dump_that_is_no_dump_is_refused(real_backup, target):
    manifest, _database = real_backup
    before = _state(target)
    with pytest.raises(BackupError) as refused:
        backup_restore(
            archive=_archive(target / "archief.tar", manifest, b"DROP TABLE accounts_user;", PHOTO), force=True
        )
    assert refused.value.code == OperationsRefusal.ARCHIVE_DAMAGED
    assert (
        "De database in de back-up is beschadigd" in refused.value.message and NOTHING_CHANGED in refused.value.message
    )
    assert _state(target) == before


def _foreign_dump(scratch: Path) -> tuple[bytes, str]:
    """A database file of another database: tables with our names, and beside them an object of its own (a
    function on PostgreSQL, a view on SQLite), with what the refusal calls it."""
    dump = scratch / "boos.dump"
    if connection.vendor == "sqlite":
        with closing(sqlite3.connect(dump)) as other:
            other.executescript(
                "CREATE TABLE accounts_user (id integer); CREATE TABLE challenges_dip (id integer, photo text);"
                "CREATE VIEW boos AS SELECT 1;"
            )
        return dump.read_bytes(), "view boos"
    name = f"{connection.settings_dict['NAME']}_boos"
    database_recreate(connection.settings_dict, name)
    try:
        with psycopg.connect(database_url(connection.settings_dict, name=name), autocommit=True) as other:
            other.execute("CREATE TABLE accounts_user (id integer)")
            other.execute("CREATE TABLE challenges_dip (id integer, photo text)")
            other.execute("CREATE FUNCTION boos() RETURNS integer LANGUAGE sql AS 'SELECT 1'")
        url = database_url(connection.settings_dict, name=name)
        subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", url], check=True, capture_output=True)
    finally:
        database_recreate(connection.settings_dict, name, create=False)
    return dump.read_bytes(), "FUNCTION boos"


def test_a_dump_with_an_object_of_its_own_is_not_run(real_backup, target):
    """A dump of another database never reaches pg_restore (or sqlite3's backup)."""
    manifest, _database = real_backup
    database, said = _foreign_dump(target)
    empty = _changed(manifest, lambda m: m.update(counts={"members": 0, "dips": 0, "photos": 0}))
    before = _state(target)
    with pytest.raises(BackupError) as refused:
        backup_restore(archive=_archive(target / "archief.tar", empty, database), force=True)
    assert refused.value.code == OperationsRefusal.ARCHIVE_TAMPERED
    assert said in refused.value.message and "er is niets van uitgevoerd" in refused.value.message
    assert _state(target) == before


def test_the_archive_is_readable_by_the_app_only(db, tmp_path, settings):
    """0600 whatever the umask: the archive holds every member's personal data."""
    settings.MEDIA_ROOT = tmp_path / "media"
    umask = os.umask(0)
    try:
        result = backup_create(folder=tmp_path / "backups", keep=1)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o600
