"""`manage.py restore ARCHIVE`: an archive of `manage.py backup` back onto an empty database and media folder.

In this order, and nothing is touched before the checks pass:
1. the manifest: an archive of this app, from this code's version or an older one (every migration it
   applied is known here; an archive of newer code is refused, an older one is brought up by `migrate`),
   of the same kind of database;
2. the target is empty (no members, no dips, no files in MEDIA_ROOT), unless `force`;
3. the database (`pg_restore` in one transaction, or sqlite3's backup API), then the media files, then
   `migrate`; the exports of members are forgotten (their files are not in the archive);
4. every cache is emptied: Redis keeps the versions and pages of the timeline that was lost, and would
   serve them (a member's version number comes back from the archive, and points at a page of later data).
"""

import datetime
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command
from django.db import OperationalError, connection, connections, transaction
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Dip
from apps.logbook.services import exports_delete_old

from .backup import (
    COPY_BUFFER,
    FORMAT,
    MANIFEST,
    MEDIA,
    MESSAGE_NO_DATABASE,
    BackupError,
    _media_files,
    _pg_connection_args,
    _pg_env,
    _run,
    app_version,
    backup_dir,
)
from .refusals import OperationsRefusal

# Tables `migrate` makes without a model: the migration records and the database cache.
OWN_TABLES = {"django_migrations", "django_cache"}
MESSAGE_NOT_AN_ARCHIVE = "{name} is geen back-up van Koud water challenge (geen manifest.json vooraan)."
MESSAGE_UNREADABLE = (
    "{name} kan niet gelezen worden: de app mag dit bestand niet openen (eigenaar of rechten). Er is niets "
    "veranderd; zet de back-up in BACKUP_DIR zoals docs/operations.md, 'Backups and restore', beschrijft."
)
MESSAGE_DAMAGED = "{name} is onvolledig of beschadigd ({error}). Er is niets veranderd; neem een andere back-up."
MESSAGE_NOT_EMPTY = (
    "De doeldatabase of mediamap is niet leeg: {found}. Herstellen zou dat overschrijven. "
    "Weet je zeker dat het weg mag? Herstel dan met --force."
)
MESSAGE_NOT_ALONE = (
    "Er zijn nog {count} andere verbindingen met de database: stop eerst de site (docker compose stop web worker "
    "scheduler), anders schrijft die in de herstelde gegevens. Weet je zeker dat het zo moet? Herstel dan met --force."
)
MESSAGE_NEWER = (
    "Deze back-up komt van een nieuwere versie van de app ({version}; deze code is {current}): deze code kent "
    "{count} van de toegepaste migraties niet ({examples}). Herstel met die versie van de app (of een nieuwere)."
)
MESSAGE_OTHER_DATABASE = (
    "Deze back-up is van een {archive}-database, maar deze installatie gebruikt {target}. "
    "Zet DATABASE_URL goed en probeer het opnieuw."
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
        tar = tarfile.open(archive, mode="r:")
    except PermissionError as error:
        # An archive copied in as root with the backup's mode 0600 (docker compose cp) is not "no backup".
        raise BackupError(
            MESSAGE_UNREADABLE.format(name=archive.name), code=OperationsRefusal.ARCHIVE_UNREADABLE
        ) from error
    except (tarfile.TarError, OSError) as error:
        raise BackupError(
            MESSAGE_NOT_AN_ARCHIVE.format(name=archive.name), code=OperationsRefusal.NOT_AN_ARCHIVE
        ) from error
    with tar:
        manifest = _manifest_read(tar, archive)
        _check_code(manifest)
        _check_database(manifest)
        _check_complete(archive)
        if not force:
            try:
                _check_empty()
                _check_alone()
            except OperationalError as error:
                raise BackupError(
                    MESSAGE_NO_DATABASE.format(error=str(error).strip()), code=OperationsRefusal.NO_DATABASE
                ) from error
        say(f"Back-up van {manifest['created_at']} (versie {manifest['version']}): {_counts(manifest)}.")
        database = tar.next()
        if database is None or database.name != manifest["database"]["file"]:
            raise BackupError(
                f"De database ontbreekt in {archive.name}: het bestand is onvolledig.",
                code=OperationsRefusal.ARCHIVE_INCOMPLETE,
            )
        with tempfile.TemporaryDirectory(prefix="koud-restore-") as scratch:
            dump = Path(scratch) / database.name
            with tar.extractfile(database) as source, open(dump, "wb") as out:  # type: ignore[union-attr]
                shutil.copyfileobj(source, out, COPY_BUFFER)
            say("Database terugzetten…")
            _database_restore(dump)
        say("Bestanden terugzetten…")
        media_files = _media_restore(tar)
    say("Database bijwerken (migrate)…")
    migrated = _migrate()
    _exports_forget()
    cleared = _caches_clear()
    return RestoreResult(manifest=manifest, media_files=media_files, migrated=migrated, caches_cleared=cleared)


def _find(archive: Path) -> Path:
    """A path, or the name of an archive in BACKUP_DIR."""
    if not archive.exists() and (backup_dir() / archive.name).exists():
        archive = backup_dir() / archive.name
    if not archive.is_file():
        raise BackupError(f"Het bestand {archive} bestaat niet.", code=OperationsRefusal.ARCHIVE_MISSING)
    return archive


def _manifest_read(tar: tarfile.TarFile, archive: Path) -> dict:
    try:
        first = tar.next()
        if first is None or first.name != MANIFEST or not first.isfile():
            raise ValueError(MANIFEST)
        manifest = json.load(tar.extractfile(first))  # type: ignore[arg-type]
        if manifest.get("format") != FORMAT:
            raise ValueError("format")
    except (ValueError, KeyError, tarfile.TarError) as error:
        raise BackupError(
            MESSAGE_NOT_AN_ARCHIVE.format(name=archive.name), code=OperationsRefusal.NOT_AN_ARCHIVE
        ) from error
    return manifest


def _check_code(manifest: dict) -> None:
    """Every migration the archive applied must be one this code knows (itself, or one a squash replaced)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    known = set(loader.disk_migrations)
    for migration in loader.disk_migrations.values():
        known.update(migration.replaces)
    unknown = [
        f"{app}.{name}" for app, names in manifest["migrations"].items() for name in names if (app, name) not in known
    ]
    if unknown:
        raise BackupError(
            MESSAGE_NEWER.format(
                version=manifest.get("version", "?"),
                current=app_version(),
                count=len(unknown),
                examples=", ".join(unknown[:5]) + (", …" if len(unknown) > 5 else ""),
            ),
            code=OperationsRefusal.ARCHIVE_NEWER,
        )


def _check_complete(archive: Path) -> None:
    """Every member's header and the length of its data, read once before anything is touched: an archive cut
    short (a copy that stopped halfway) is refused, instead of failing with the database already replaced."""
    try:
        with tarfile.open(archive, mode="r:") as tar:
            while tar.next() is not None:
                tar.members.clear()  # type: ignore[attr-defined]
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BackupError(
            MESSAGE_DAMAGED.format(name=archive.name, error=error), code=OperationsRefusal.ARCHIVE_DAMAGED
        ) from error


def _check_database(manifest: dict) -> None:
    names = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
    archived, target = manifest["database"]["vendor"], connection.vendor
    if archived != target:
        raise BackupError(
            MESSAGE_OTHER_DATABASE.format(archive=names.get(archived, archived), target=names.get(target, target)),
            code=OperationsRefusal.OTHER_DATABASE,
        )


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
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
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
        # The dump's table of contents is read first: a damaged dump stops here, before anything is dropped.
        _run(["pg_restore", "--list", "--file=/dev/null", str(dump)], env=_pg_env({}), what="pg_restore --list")
        _pg_empty()
        argv = ["pg_restore", "--no-owner", "--no-privileges", "--clean", "--if-exists", "--exit-on-error"]
        argv += ["--single-transaction", "--no-password", *_pg_connection_args(connection.settings_dict), str(dump)]
        _run(argv, env=_pg_env(connection.settings_dict), what="pg_restore")
    else:
        try:
            # A file that is not a database fails here ("file is not a database"), before the target is touched.
            with sqlite3.connect(dump) as check:
                if not check.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise sqlite3.DatabaseError("geen tabellen")
            check.close()
        except sqlite3.DatabaseError as error:
            raise BackupError(
                f"De database in de back-up is beschadigd ({error}). Er is niets veranderd.",
                code=OperationsRefusal.ARCHIVE_DAMAGED,
            ) from error
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
            cursor.execute(f"SELECT {column} FROM {catalogue} WHERE schemaname = current_schema()")  # noqa: S608
            for (name,) in cursor.fetchall():
                cursor.execute(f"DROP {kind} IF EXISTS {connection.ops.quote_name(name)} CASCADE")


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


# --- the media folder -----------------------------------------------------------------------------------------


def _media_restore(tar: tarfile.TarFile) -> int:
    """Every `media/…` member into MEDIA_ROOT, one at a time. A name that would land outside MEDIA_ROOT,
    and anything but a regular file (a link, a device), is refused."""
    root = Path(settings.MEDIA_ROOT)
    restored = 0
    while (member := tar.next()) is not None:
        relative = PurePosixPath(member.name[len(MEDIA) :]) if member.name.startswith(MEDIA) else None
        if relative is None or relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise BackupError(
                f"De back-up bevat een onverwacht bestand: {member.name!r}. Er is gestopt.",
                code=OperationsRefusal.UNEXPECTED_MEMBER,
            )
        if not member.isfile():
            raise BackupError(
                f"De back-up bevat iets anders dan een bestand: {member.name!r}. Er is gestopt.",
                code=OperationsRefusal.UNEXPECTED_MEMBER,
            )
        target = root.joinpath(*relative.parts)
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
