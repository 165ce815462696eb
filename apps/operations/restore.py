"""`manage.py restore ARCHIVE`: an archive of `manage.py backup` back onto an empty database and media folder.

In this order, and nothing is touched before the checks pass:
1. the whole archive (apps/operations/archive_check.py): the manifest's keys and types, every entry's name,
   kind and size (only regular files under `media/`), room on the disk; an archive of this code's version or
   an older one (every migration it applied is known here; newer code is refused, older is brought up by
   `migrate`), of the same kind of database;
2. the target is empty (no members, no dips, no files in MEDIA_ROOT), unless `force`;
3. the database file (apps/operations/dump_check.py): only this app's tables and functions, and the counts
   the manifest promises; a changed dump is refused before a statement of it runs;
4. the database (`pg_restore` in one transaction, or sqlite3's backup API), then the media files, then
   `migrate`; the exports of members are forgotten (their files are not in the archive), no session
   survives and expired invitation codes go;
5. every cache is emptied: Redis keeps the versions and pages of the timeline that was lost, and would
   serve them (a member's version number comes back from the archive, and points at a page of later data).
"""

import datetime
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command
from django.db import OperationalError, connection, connections, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Dip
from apps.core.sql_registry import register
from apps.invitations.services import invitations_cleanup_expired
from apps.logbook.services import exports_delete_old

from .archive_check import archive_read, media_relative
from .backup import (
    COPY_BUFFER,
    MESSAGE_NO_DATABASE,
    BackupError,
    _media_files,
    backup_dir,
)
from .dump_check import OWN_TABLES, dump_check, dump_extract
from .postgres_client import pg_connection_args, pg_env, pg_run
from .refusals import OperationsRefusal

_OTHERS = register(
    "restore.other_sessions",
    postgresql="SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    without="SQLite has no server to ask who else is connected",
)
_PG_WITHOUT = "SQLite's backup API replaces the whole file, what is in it included"
_SCHEMA_NAMES = register(
    "restore.schema_names",
    postgresql="SELECT {column} FROM {catalogue} WHERE schemaname = current_schema()",
    without=_PG_WITHOUT,
    parts={"column": "tablename", "catalogue": "pg_tables"},
)
_DROP = register(
    "restore.drop",
    postgresql="DROP {kind} IF EXISTS {name} CASCADE",
    without=_PG_WITHOUT,
    parts={"kind": "TABLE", "name": '"challenges_badgetally"'},
)

MESSAGE_UNREADABLE = (
    "{name} kan niet gelezen worden: de app mag dit bestand niet openen (eigenaar of rechten). Er is niets "
    "veranderd; zet de back-up in BACKUP_DIR zoals docs/operations.md, 'Backups and restore', beschrijft."
)
MESSAGE_NOT_EMPTY = (
    "De doeldatabase of mediamap is niet leeg: {found}. Herstellen zou dat overschrijven. "
    "Weet je zeker dat het weg mag? Herstel dan met --force."
)
MESSAGE_NOT_ALONE = (
    "Er zijn nog {count} andere verbindingen met de database: stop eerst de site (docker compose stop web worker "
    "scheduler), anders schrijft die in de herstelde gegevens. Weet je zeker dat het zo moet? Herstel dan met --force."
)


@dataclass
class RestoreResult:
    manifest: dict
    media_files: int
    migrated: list[str]
    caches_cleared: list[str]


def backup_restore(*, archive: Path, force: bool = False, say: Callable[[str], None] = lambda line: None):
    """Restore `archive` into the configured database and MEDIA_ROOT. Raises BackupError (Dutch) when it
    must not: not an archive, newer code, another kind of database, a target that is not empty."""
    archive = _find(archive)
    try:
        file = open(archive, "rb")  # closed by the with below
    except PermissionError as error:
        # An archive copied in as root with the backup's mode 0600 (docker compose cp) is not "no backup".
        raise BackupError(
            MESSAGE_UNREADABLE.format(name=archive.name), code=OperationsRefusal.ARCHIVE_UNREADABLE
        ) from error
    with file:
        # Every check before anything is touched: the whole archive, the target, then the database file.
        contents = archive_read(file, name=archive.name)
        manifest = contents.manifest
        if not force:
            try:
                _check_empty()
                _check_alone()
            except OperationalError as error:
                raise BackupError(
                    MESSAGE_NO_DATABASE.format(error=str(error).strip()), code=OperationsRefusal.NO_DATABASE
                ) from error
        say(f"Back-up van {manifest['created_at']} (versie {manifest['version']}): {_counts(manifest)}.")
        with tempfile.TemporaryDirectory(prefix="koud-restore-") as scratch:
            dump = dump_extract(file, manifest=manifest, scratch=Path(scratch))
            dump_check(dump, manifest=manifest)
            say("Database terugzetten…")
            _database_restore(dump)
        say("Bestanden terugzetten…")
        media_files = _media_restore(file)
    say("Database bijwerken (migrate)…")
    migrated = _migrate()
    _exports_forget()
    _sign_ins_forget()
    cleared = _caches_clear()
    return RestoreResult(manifest=manifest, media_files=media_files, migrated=migrated, caches_cleared=cleared)


def _find(archive: Path) -> Path:
    """A path, or the name of an archive in BACKUP_DIR."""
    if not archive.exists() and (backup_dir() / archive.name).exists():
        archive = backup_dir() / archive.name
    if not archive.is_file():
        raise BackupError(f"Het bestand {archive} bestaat niet.", code=OperationsRefusal.ARCHIVE_MISSING)
    return archive


def _check_empty() -> None:
    """Empty: no members and no dips (a database that only `migrate` ran on, with its catalogue, counts as
    empty), no tables this app does not know (a DATABASE_URL that names another app's database), and no
    files in MEDIA_ROOT but exports."""
    found = []
    tables = set(connection.introspection.table_names(include_views=True))
    ours = set(connection.introspection.django_table_names(include_views=True)) | OWN_TABLES
    if foreign := sorted(tables - ours):
        found.append(f"{len(foreign)} tabellen die niet van deze app zijn ({', '.join(foreign[:3])})")
    for model, what in ((User, "leden"), (Dip, "plonsen")):
        if model._meta.db_table in tables and (count := model.objects.count()):
            found.append(f"{count} {what}")
    files = sum(1 for _ in _media_files(Path(settings.MEDIA_ROOT), skip=[backup_dir()]))
    if files:
        found.append(f"{files} bestanden in {settings.MEDIA_ROOT}")
    if found:
        raise BackupError(MESSAGE_NOT_EMPTY.format(found=", ".join(found)), code=OperationsRefusal.TARGET_NOT_EMPTY)


def _check_alone() -> None:
    """Nobody else is connected to the database (PostgreSQL): a web container or worker still running would
    write into the restored data, or cache its pages again after the cache was emptied."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(_OTHERS.sql(connection.vendor))
        (others,) = cursor.fetchone()
    if others:
        raise BackupError(MESSAGE_NOT_ALONE.format(count=others), code=OperationsRefusal.TARGET_IN_USE)


def _counts(manifest: dict) -> str:
    counts = manifest["counts"]
    return f"{counts['members']} leden, {counts['dips']} plonsen, {counts['photos']} foto's"


# --- the database ---------------------------------------------------------------------------------------------


def _database_restore(dump: Path) -> None:
    connections.close_all()
    if connection.vendor == "postgresql":
        _pg_empty()  # dump_check read the dump's table of contents and rows first
        argv = ["pg_restore", "--no-owner", "--no-privileges", "--clean", "--if-exists", "--exit-on-error"]
        argv += ["--single-transaction", "--no-password", *pg_connection_args(connection.settings_dict), str(dump)]
        pg_run(argv, env=pg_env(connection.settings_dict), what="pg_restore")
    else:
        with sqlite3.connect(dump) as source, sqlite3.connect(connection.settings_dict["NAME"]) as target:
            source.backup(target)  # the whole target is replaced, page by page
        source.close()
        target.close()
    connections.close_all()


def _pg_empty() -> None:
    """Drop what is in the schema (tables a newer `migrate` made would otherwise stay beside the restored
    ones). Reached only for an empty target (a fresh `migrate`) or with --force."""
    with transaction.atomic(), connection.cursor() as cursor:
        for kind, catalogue, column in (
            ("VIEW", "pg_views", "viewname"),
            ("TABLE", "pg_tables", "tablename"),
            ("SEQUENCE", "pg_sequences", "sequencename"),
        ):
            cursor.execute(_SCHEMA_NAMES.sql(connection.vendor, column=column, catalogue=catalogue))
            for (name,) in cursor.fetchall():
                cursor.execute(_DROP.sql(connection.vendor, kind=kind, name=connection.ops.quote_name(name)))


def _migrate() -> list[str]:
    """Bring an archive of an older version up to this code; returns the migrations that ran."""
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    call_command("migrate", interactive=False, verbosity=0)
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def _exports_forget() -> None:
    """The archive holds no export files: every ready export the database remembers goes (the member asks
    for a new one). Through the export's own clean-up, as if they were all past EXPORT_KEEP_HOURS."""
    exports_delete_old(now=timezone.now() + datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS))


def _sign_ins_forget() -> None:
    """A backup is not a sign-in: no session survives a restore (an archive of an older version still held
    them), and an invitation code that expired since the backup is gone, as the nightly clean-up would do."""
    with transaction.atomic():
        Session.objects.all().delete()
    invitations_cleanup_expired()


# --- the media folder -----------------------------------------------------------------------------------------


def _media_restore(file: IO[bytes]) -> int:
    """Every `media/…` entry into MEDIA_ROOT, one at a time; archive_read refused the archive before anything was
    touched if one would land outside MEDIA_ROOT or is not a regular file (and media_relative says so again)."""
    root = Path(settings.MEDIA_ROOT)
    restored = 0
    file.seek(0)
    with tarfile.open(fileobj=file, mode="r:") as tar:
        tar.next(), tar.next()  # the manifest and the database
        while (member := tar.next()) is not None:
            target = root.joinpath(*media_relative(member).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".restoring-{target.name}")
            with tar.extractfile(member) as source, open(partial, "wb") as out:  # type: ignore[union-attr]
                shutil.copyfileobj(source, out, COPY_BUFFER)
            os.utime(partial, (member.mtime, member.mtime))
            os.replace(partial, target)
            restored += 1
            # tarfile remembers every member it read (the list behind getmembers()): memory would grow per photo.
            tar.members.clear()  # type: ignore[attr-defined]
    return restored


# --- the caches -----------------------------------------------------------------------------------------------


def _caches_clear() -> list[str]:
    """Empty every cache alias. Redis straight, past the fallback that makes a failing Redis look like a
    miss: a Redis that cannot be emptied must stop the restore with a message, not pass in silence."""
    cleared = []
    for alias in settings.CACHES:
        cache = caches[alias]
        try:
            if isinstance(cache, RedisCache):
                RedisCache.clear(cache)
            else:
                cache.clear()
        except Exception as error:  # noqa: BLE001 - any failure is told to the operator
            raise BackupError(
                f"De database en de bestanden zijn hersteld, maar de cache '{alias}' kon niet worden geleegd "
                f"({error}). Leeg Redis zelf (redis-cli FLUSHDB) voordat de site weer draait: anders toont hij "
                "pagina's van na de back-up.",
                code=OperationsRefusal.CACHE_NOT_EMPTIED,
            ) from error
        cleared.append(alias)
    return cleared
