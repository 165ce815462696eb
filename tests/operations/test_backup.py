"""`manage.py backup` and `restore` beyond the drill (test_backup_drill.py): refusals, retention, the
half-written archive, S3, and the SQLite database of `make run`."""

import io
import json
import os
import secrets
import sqlite3
import subprocess
import tarfile
import time

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from apps.operations import backup as backup_module
from apps.operations import postgres_client
from apps.operations.backup import (
    ARCHIVE_PREFIX,
    DATABASE_FILES,
    BackupError,
    backup_archives,
    backup_create,
    backup_prune,
)
from tests.concurrency import requires_postgresql
from tests.factories import UserFactory

from .drill import database_url, manage, site_env


def _archive(path, *, migrations=None, vendor=None, photo: bytes = b"") -> None:
    """A small archive as `backup` writes it, with the manifest a test chooses."""
    vendor = vendor or connection.vendor
    manifest = {
        "format": 1,
        "version": "9.9.9",
        "created_at": "2026-11-27T12:00:00+00:00",
        "database": {"vendor": vendor, "file": DATABASE_FILES[vendor]},
        "migrations": migrations if migrations is not None else {"challenges": ["0001_initial"]},
        "counts": {"members": 1, "dips": 0, "photos": 0},
        "media": {"included": True},
    }
    with tarfile.open(path, "w") as tar:
        members = [("manifest.json", json.dumps(manifest).encode()), (DATABASE_FILES[vendor], b"niets")]
        for name, data in members + ([("media/dip_photos/1/plons.jpg", photo)] if photo else []):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_restore_refuses_a_database_with_members(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    UserFactory(email="blijft@example.nl")
    _archive(tmp_path / "koud-backup-20261127-120000.tar")
    with pytest.raises(CommandError) as refused:
        call_command("restore", str(tmp_path / "koud-backup-20261127-120000.tar"))
    assert "niet leeg: 1 leden" in str(refused.value) and "--force" in str(refused.value)


def test_restore_refuses_a_media_folder_with_files(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "media" / "dip_photos").mkdir(parents=True)
    (tmp_path / "media" / "dip_photos" / "oud.jpg").write_bytes(b"foto")
    _archive(tmp_path / "archief.tar")
    with pytest.raises(CommandError, match="1 bestanden in .*Herstel dan met --force"):
        call_command("restore", str(tmp_path / "archief.tar"))
    assert (tmp_path / "media" / "dip_photos" / "oud.jpg").read_bytes() == b"foto"


def test_restore_refuses_an_archive_of_newer_code_before_it_touches_anything(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    member = UserFactory(email="blijft@example.nl")
    _archive(tmp_path / "nieuw.tar", migrations={"challenges": ["0001_initial", "0999_van_later"]})
    # Even with --force: an archive the code cannot read is never restored.
    with pytest.raises(CommandError) as refused:
        call_command("restore", str(tmp_path / "nieuw.tar"), "--force")
    message = str(refused.value)
    assert "nieuwere versie van de app (9.9.9" in message and "challenges.0999_van_later" in message
    member.refresh_from_db()


def test_restore_refuses_another_kind_of_database_and_what_is_no_archive(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    other = "sqlite" if connection.vendor == "postgresql" else "postgresql"
    _archive(tmp_path / "ander.tar", vendor=other)
    with pytest.raises(CommandError, match="Zet DATABASE_URL goed"):
        call_command("restore", str(tmp_path / "ander.tar"))
    (tmp_path / "foto.jpg").write_bytes(b"\xff\xd8 geen tar")
    with pytest.raises(CommandError, match="foto.jpg is geen back-up van Koud water challenge"):
        call_command("restore", str(tmp_path / "foto.jpg"))
    with pytest.raises(CommandError, match="bestaat niet"):
        call_command("restore", str(tmp_path / "weg.tar"))


def test_restore_says_an_archive_it_may_not_open_is_unreadable_not_no_backup(db, tmp_path, settings, monkeypatch):
    # The compose drill: an archive copied in as root, mode 0600, which the app's user cannot open. Tests run
    # as root here, which may open anything, so the refusal of the operating system is simulated.
    settings.MEDIA_ROOT = tmp_path / "media"
    _archive(tmp_path / "van-elders.tar")

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("apps.operations.restore.open", refused, raising=False)  # the module's open, not the builtin
    with pytest.raises(CommandError, match="van-elders.tar kan niet gelezen worden: de app mag dit bestand niet"):
        call_command("restore", str(tmp_path / "van-elders.tar"))


def test_retention_keeps_the_newest_and_clears_what_a_dead_backup_left(tmp_path):
    names = [f"{ARCHIVE_PREFIX}202611{day:02d}-030000.tar" for day in range(1, 17)]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    old_partial = tmp_path / f".partial-{ARCHIVE_PREFIX}20261101-030000.tar"
    fresh_partial = tmp_path / f".partial-{ARCHIVE_PREFIX}20261117-030000.tar"
    old_scratch = tmp_path / ".scratch-abc"
    for path in (old_partial, fresh_partial):
        path.write_bytes(b"half")
    old_scratch.mkdir()
    two_days_ago = time.time() - 2 * 24 * 60 * 60
    for path in (old_partial, old_scratch):
        os.utime(path, (two_days_ago, two_days_ago))
    (tmp_path / "notities.txt").write_text("van de beheerder")

    removed = backup_prune(folder=tmp_path, keep=14)

    assert [path.name for path in removed] == names[:2]
    assert [path.name for path in backup_archives(folder=tmp_path)] == names[2:]
    assert not old_partial.exists() and not old_scratch.exists()
    assert fresh_partial.exists()  # perhaps a backup running right now
    assert (tmp_path / "notities.txt").exists()
    assert len(backup_prune(folder=tmp_path, keep=0)) == 13  # at least one is always kept


def test_a_backup_that_fails_halfway_leaves_no_archive(tmp_path, settings, monkeypatch):
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "media" / "dip_photos").mkdir(parents=True)
    for index in range(3):
        (tmp_path / "media" / "dip_photos" / f"{index}.jpg").write_bytes(b"foto")

    def database_copy(scratch, *, now):
        dump = scratch / "database.dump"
        dump.write_bytes(b"dump")
        return {"database": {"file": "database.dump"}, "media": {"included": True}, "counts": {}}, dump

    def media_files(root, *, skip):
        yield root / "dip_photos" / "0.jpg", "media/dip_photos/0.jpg"
        raise OSError("schijf vol")

    monkeypatch.setattr(backup_module, "_database_copy", database_copy)
    monkeypatch.setattr(backup_module, "_media_files", media_files)
    with pytest.raises(BackupError, match="kon niet worden geschreven .*schijf vol"):
        backup_create(folder=tmp_path / "backups", keep=14)
    assert os.listdir(tmp_path / "backups") == []


def test_on_s3_the_archive_says_the_photos_are_in_the_bucket(settings, monkeypatch):
    monkeypatch.setattr(backup_module, "photos_are_local", lambda: False)
    settings.STORAGES = {
        **settings.STORAGES,
        "photos": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {"bucket_name": "club-fotos"}},
    }
    media = backup_module._media_manifest()
    assert media["included"] is False and media["bucket"] == "club-fotos" and "S3-bucket" in media["waarom"]
    assert "secret_key" not in json.dumps(media)


def _newest_migration(app: str) -> tuple[str, str]:
    """The newest migration of `app` and the one before it."""
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    (newest,) = graph.leaf_nodes(app)
    (previous,) = [parent for parent in graph.node_map[newest].parents if parent.key[0] == app]
    return newest[1], previous.key[1]


def test_sqlite_backup_and_restore_of_an_older_version(tmp_path):
    """`make run`'s SQLite file: copied with sqlite3's backup API, restored into another file; the archive
    of an older version is brought up by `migrate`."""
    env = site_env(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}",
        MEDIA_ROOT=str(tmp_path / "media"),
        BACKUP_DIR=str(tmp_path / "backups"),
    )
    manage("migrate", "--noinput", "-v", "0", env=env)
    manage(
        "shell",
        "-c",
        "from apps.accounts.models import User; User.objects.create_user(email='sqlite@example.nl', password='x')",
        env=env,
    )
    # An archive of an older version of the code: the members' newest migration is not applied yet.
    newest, previous = _newest_migration("accounts")
    manage("migrate", "accounts", previous, "-v", "0", env=env)
    (tmp_path / "media" / "badge_art").mkdir(parents=True)
    (tmp_path / "media" / "badge_art" / "kikker.png").write_bytes(b"\x89PNG kunst")
    (tmp_path / "media" / "exports").mkdir()
    (tmp_path / "media" / "exports" / "1-abc.zip").write_bytes(b"PK export")
    assert "1 leden" in manage("backup", env=env).stdout
    (archive,) = (tmp_path / "backups").glob("koud-backup-*.tar")
    with tarfile.open(archive) as tar:
        assert tar.getnames() == ["manifest.json", "database.sqlite3", "media/badge_art/kikker.png"]

    restored = {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'restored.sqlite3'}", "MEDIA_ROOT": str(tmp_path / "m2")}
    done = manage("restore", archive.name, env=restored)  # a name in BACKUP_DIR will do
    assert "Herstel klaar" in done.stdout and "migratie(s) uitgevoerd" in done.stdout
    with sqlite3.connect(tmp_path / "restored.sqlite3") as db:
        assert db.execute("SELECT email FROM accounts_user").fetchall() == [("sqlite@example.nl",)]
        assert db.execute("SELECT 1 FROM django_migrations WHERE app = 'accounts' AND name = ?", [newest]).fetchone()
    db.close()
    assert (tmp_path / "m2" / "badge_art" / "kikker.png").read_bytes() == b"\x89PNG kunst"
    again = manage("restore", str(archive), env=restored, check=False)
    assert again.returncode != 0 and "niet leeg: 1 leden" in again.stderr


def test_restore_refuses_a_database_of_another_app(db, tmp_path, settings):
    """A DATABASE_URL that names another app's database: its tables are never dropped without --force."""
    settings.MEDIA_ROOT = tmp_path / "media"
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE boekhouding_factuur (id integer)")
    _archive(tmp_path / "archief.tar")
    with pytest.raises(CommandError, match="1 tabellen die niet van deze app zijn \\(boekhouding_factuur\\)"):
        call_command("restore", str(tmp_path / "archief.tar"))


def test_the_database_password_goes_in_the_environment_never_on_the_command_line(monkeypatch, tmp_path):
    ran = []

    def run(argv, *, env, **kwargs):
        ran.append((argv, env))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(postgres_client.subprocess, "run", run)
    monkeypatch.setenv("PGPASSWORD", "van-de-shell")
    database = {"NAME": "club", "USER": "koud", "PASSWORD": "geheim-wachtwoord", "HOST": "db", "PORT": "5432"}
    backup_module._pg_dump(database, snapshot="00000003-1", target=tmp_path / "database.dump")
    ((argv, env),) = ran
    assert not [arg for arg in argv if "geheim-wachtwoord" in arg]
    assert env["PGPASSWORD"] == "geheim-wachtwoord"
    assert "--dbname=club" in argv and "--host=db" in argv and "--snapshot=00000003-1" in argv
    assert "--format=custom" in argv


def test_restore_refuses_an_archive_cut_short_before_it_touches_anything(db, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    _archive(tmp_path / "half.tar", photo=os.urandom(20_000))
    whole = (tmp_path / "half.tar").read_bytes()
    (tmp_path / "half.tar").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(CommandError, match="half.tar is onvolledig of beschadigd .*Er is niets veranderd"):
        call_command("restore", str(tmp_path / "half.tar"))
    assert not (tmp_path / "media").exists()


@pytest.mark.django_db(transaction=True)
def test_a_damaged_database_dump_is_refused_before_anything_is_dropped(tmp_path, settings):
    from apps.challenges.models import Challenge

    settings.MEDIA_ROOT = tmp_path / "media"
    catalogue = Challenge.objects.count()
    _archive(tmp_path / "kapot.tar")  # a database "dump" of five bytes
    # --force: past the checks of the target (another test's live server may still be connected).
    with pytest.raises(CommandError, match="mislukt|beschadigd"):
        call_command("restore", str(tmp_path / "kapot.tar"), "--force")
    assert catalogue and Challenge.objects.count() == catalogue


def test_restore_refuses_while_the_site_is_still_connected(db, tmp_path, settings):
    requires_postgresql()
    settings.MEDIA_ROOT = tmp_path / "media"
    _archive(tmp_path / "archief.tar")
    with psycopg.connect(database_url(connection.settings_dict)):  # a web container that still runs
        with pytest.raises(CommandError, match="nog 1 andere verbindingen met de database: stop eerst de site"):
            call_command("restore", str(tmp_path / "archief.tar"))


@pytest.mark.django_db(transaction=True)
def test_the_backup_holds_no_table_while_pg_dump_runs(tmp_path, settings, monkeypatch):
    """A table the snapshot's own connection had read before pg_dump would hold up a migration arriving in between,
    and pg_dump's locks would queue behind that migration: a wait nobody ends. It reads its counts afterwards."""
    requires_postgresql()
    settings.MEDIA_ROOT = tmp_path / "media"
    UserFactory()
    held_during_dump: list[str] = []
    real_pg_dump = backup_module._pg_dump

    def pg_dump(settings_dict, *, snapshot, target):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT l.relation::regclass::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                " WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND l.locktype = 'relation'"
            )
            held_during_dump.extend(row[0] for row in cursor.fetchall())
        real_pg_dump(settings_dict, snapshot=snapshot, target=target)

    monkeypatch.setattr(backup_module, "_pg_dump", pg_dump)
    result = backup_create(folder=tmp_path / "backups")
    assert held_during_dump == []
    assert result.counts["members"] == 1  # still read from the dump's moment
