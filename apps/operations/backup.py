"""`manage.py backup`: one dated archive in BACKUP_DIR that `manage.py restore` can bring back on its own.

An archive is a plain tar file, `koud-backup-YYYYMMDD-HHMMSS.tar` (the time in UTC), with, in this order:
- `manifest.json`: the app's version, the migrations applied per app, the counts of members, dips and
  photos, what the archive holds and what it leaves out (and why). First, so a restore checks it before
  it touches anything.
- the database: `database.dump` (`pg_dump` custom format) on PostgreSQL, `database.sqlite3` (sqlite3's
  backup API) on SQLite. The counts and the migrations are read in the very snapshot that is dumped.
- `media/…`: MEDIA_ROOT (photos, thumbnails, badge art), file by file, so memory stays flat whatever the
  number of photos. Exports of members are left out (see MEDIA_LEFT_OUT). On S3 the photos stay in the
  bucket and the manifest says so.

It is written under a hidden temporary name and renamed when complete: a half-written archive never
matches `koud-backup-*`, so it never counts as the last backup (Systeemstatus reads the newest one).
"""

import datetime
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.files.storage import FileSystemStorage, storages
from django.db import OperationalError, connections

from apps.accounts.models import User
from apps.challenges.models import Dip
from apps.core.sql_registry import Statement, register
from apps.invitations.services import invitations_cleanup_expired

from .postgres_client import pg_connection_args, pg_env, pg_run
from .refusals import BackupError, OperationsRefusal

ARCHIVE_PREFIX = "koud-backup-"
ARCHIVE_SUFFIX = ".tar"
# Work in progress: a partial archive (+ its final name) and a scratch folder, never matching ARCHIVE_PREFIX + "*".
PARTIAL_PREFIX = ".partial-"
SCRATCH_PREFIX = ".scratch-"
FORMAT = 1
MANIFEST = "manifest.json"
DATABASE_FILES = {"postgresql": "database.dump", "sqlite": "database.sqlite3"}
MEDIA = "media/"
SESSIONS = Session._meta.db_table
_SQLITE_COPIES = "SQLite's backup API copies the file as one consistent page-by-page copy"
_BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
_SNAPSHOT_BEGIN = register("backup.snapshot_begin", postgresql=_BEGIN, without=_SQLITE_COPIES, alone=True)
_SNAPSHOT = register("backup.snapshot", postgresql="SELECT pg_export_snapshot()", without=_SQLITE_COPIES, alone=True)
_SNAPSHOT_END = register("backup.snapshot_end", postgresql="COMMIT", without=_SQLITE_COPIES, alone=True)
_COPY_SESSIONS_GONE = register(
    "backup.copy_sessions_gone",
    sqlite='DELETE FROM "{table}"',
    without="pg_dump leaves the session rows out (--exclude-table-data)",
    parts={"table": SESSIONS},
)
_MIGRATIONS = register("backup.migrations", both="SELECT app, name FROM django_migrations ORDER BY app, id")
ROWS = register("backup.rows", both='SELECT count(*) FROM "{table}"', parts={"table": User._meta.db_table})
PHOTOS = register(
    "backup.photos", both="SELECT count(*) FROM \"{table}\" WHERE photo <> ''", parts={"table": Dip._meta.db_table}
)
COPY_BUFFER = 1024 * 1024
MESSAGE_NO_DATABASE = "De database is niet bereikbaar ({error}). Controleer DATABASE_URL en of de database draait."
# What MEDIA_ROOT holds that the archive leaves out, and why (the manifest and docs/operations.md say it too).
MEDIA_LEFT_OUT = {
    "exports": (
        "De exports van leden ('Download mijn gegevens') verlopen na EXPORT_KEEP_HOURS (24 uur) en zijn een kopie "
        "van wat al in de database en de foto's staat. Na een herstel vraagt een lid een nieuwe aan; de herstelde "
        "database vergeet de oude exports, zodat geen link naar een ontbrekend bestand wijst."
    ),
}
NOT_INSIDE = [
    {
        "wat": "Het env-bestand (.env): DJANGO_SECRET_KEY, MFA_ENCRYPTION_KEY, VAPID_PRIVATE_KEY en "
        "VAPID_PUBLIC_KEY, en de wachtwoorden van database, mail en S3.",
        "waarom": "Wie de geheime sleutel heeft, kan sessies en links van de site namaken; wie de MFA-sleutel heeft, "
        "kan de geheimen van authenticator-apps lezen; wie de VAPID-sleutel heeft, kan pushberichten uit naam van "
        "de club sturen. Een back-up wordt gekopieerd en bewaard op plekken die minder goed beveiligd zijn; bewaar "
        "het env-bestand daarom apart, in een wachtwoordmanager. Met een andere VAPID-sleutel moeten alle leden "
        "pushmeldingen opnieuw aanzetten; met een andere geheime sleutel moeten ze opnieuw inloggen; zonder de "
        "MFA-sleutel stellen ze hun authenticator-app opnieuw in.",
    },
    {
        "wat": "Sessies (wie is ingelogd) en verlopen uitnodigingscodes.",
        "waarom": "Een back-up is geen inlog: wie een kopie heeft, kan er niemand mee zijn. Na een herstel logt "
        "iedereen opnieuw in. De geheimen van authenticator-apps staan er alleen versleuteld in.",
    },
    {
        "wat": "De cache (Redis).",
        "waarom": "Die is na te maken; herstellen leegt hem, anders toont de site pagina's van na de back-up.",
    },
]


@dataclass
class BackupResult:
    path: Path
    size: int
    seconds: float
    counts: dict[str, int]
    removed: list[Path] = field(default_factory=list)


def backup_dir() -> Path:
    return Path(settings.BACKUP_DIR)


def app_version() -> str:
    """The version in pyproject.toml; "onbekend" where the file is missing (the migrations still guard a restore)."""
    try:
        with open(Path(settings.BASE_DIR) / "pyproject.toml", "rb") as file:
            return tomllib.load(file)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "onbekend"


def backup_archives(*, folder: Path | None = None) -> list[Path]:
    """The finished archives in `folder` (BACKUP_DIR), oldest first (the name holds the time)."""
    folder = folder or backup_dir()
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.iterdir()
        if path.name.startswith(ARCHIVE_PREFIX) and path.name.endswith(ARCHIVE_SUFFIX) and path.is_file()
    )


def backup_create(*, folder: Path | None = None, keep: int | None = None, now: datetime.datetime | None = None):
    """Write one archive into `folder` (BACKUP_DIR), then keep only the newest `keep` (BACKUP_KEEP)."""
    started = time.monotonic()
    folder = folder or backup_dir()
    keep = settings.BACKUP_KEEP if keep is None else keep
    now = now or datetime.datetime.now(datetime.UTC)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{ARCHIVE_PREFIX}{now.astimezone(datetime.UTC):%Y%m%d-%H%M%S}{ARCHIVE_SUFFIX}"
    final = folder / name
    if final.exists():
        raise BackupError(
            f"Er bestaat al een back-up met de naam {name}. Probeer het over een seconde opnieuw.",
            code=OperationsRefusal.BACKUP_NAME_TAKEN,
        )
    partial = folder / (PARTIAL_PREFIX + name)
    written = False
    try:
        with tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX, dir=folder) as scratch:
            try:
                manifest, database_file = _database_copy(Path(scratch), now=now)
            except OperationalError as error:
                raise BackupError(
                    MESSAGE_NO_DATABASE.format(error=str(error).strip()), code=OperationsRefusal.NO_DATABASE
                ) from error
            # Members' personal data: readable by the app's user only (the operator copies it off as root).
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            written = True
            with open(descriptor, "wb") as out:
                with tarfile.TarFile(fileobj=out, mode="w", format=tarfile.PAX_FORMAT, copybufsize=COPY_BUFFER) as tar:
                    _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False).encode())
                    _add_file(tar, manifest["database"]["file"], database_file)
                    database_file.unlink()  # room on the disk for the media
                    if manifest["media"]["included"]:
                        for path, arcname in _media_files(Path(settings.MEDIA_ROOT), skip=[folder]):
                            _add_file(tar, arcname, path)
                out.flush()
                os.fsync(out.fileno())
        os.rename(partial, final)
        _fsync_folder(folder)
    except OSError as error:  # a full disk, a folder the app may not write: said, and nothing left behind
        raise BackupError(
            f"De back-up kon niet worden geschreven in {folder}: {error}", code=OperationsRefusal.CANNOT_WRITE
        ) from error
    finally:
        if written:
            partial.unlink(missing_ok=True)
    removed = backup_prune(folder=folder, keep=keep)
    return BackupResult(
        path=final,
        size=final.stat().st_size,
        seconds=time.monotonic() - started,
        counts=manifest["counts"],
        removed=removed,
    )


def backup_prune(*, folder: Path | None = None, keep: int) -> list[Path]:
    """Keep the newest `keep` archives (at least one) and remove the rest, and any partial archive or
    scratch folder a backup that died left behind more than a day ago."""
    folder = folder or backup_dir()
    archives = backup_archives(folder=folder)
    removed = archives[: max(len(archives) - max(keep, 1), 0)]
    for path in removed:
        path.unlink(missing_ok=True)
    day_ago = time.time() - 24 * 60 * 60
    for path in folder.glob(f"{PARTIAL_PREFIX}*"):
        if path.stat().st_mtime < day_ago:
            path.unlink(missing_ok=True)
    for path in folder.glob(f"{SCRATCH_PREFIX}*"):
        if path.is_dir() and path.stat().st_mtime < day_ago:
            shutil.rmtree(path, ignore_errors=True)
    return removed


# --- the database ---------------------------------------------------------------------------------------------


def _database_copy(scratch: Path, *, now: datetime.datetime) -> tuple[dict, Path]:
    """Copy the database into `scratch`, and the manifest read from the same moment of it."""
    vendor = connections["default"].vendor
    if vendor not in DATABASE_FILES:
        raise BackupError(
            f"Een back-up kan alleen van PostgreSQL of SQLite, niet van {vendor}.",
            code=OperationsRefusal.UNSUPPORTED_DATABASE,
        )
    target = scratch / DATABASE_FILES[vendor]
    # An invitation code in an archive must not outlive its expiry: the expired ones go before the copy (and
    # restore removes those that expired since).
    invitations_cleanup_expired(now=now)
    # A connection of its own: the caller (the scheduler) may hold a transaction on the default one.
    db = connections.create_connection("default")
    try:
        with db.cursor() as cursor:
            if vendor == "postgresql":
                # One snapshot for pg_dump, the counts and the migrations: the manifest tells what is dumped.
                # The counts are read after pg_dump: a lock taken here first would hold up a migration (or any
                # ALTER) arriving in between, behind which pg_dump's own locks would wait for ever.
                cursor.execute(_SNAPSHOT_BEGIN.sql(vendor))
                cursor.execute(_SNAPSHOT.sql(vendor))
                snapshot = cursor.fetchone()[0]
                _pg_dump(db.settings_dict, snapshot=snapshot, target=target)
                manifest = _manifest(cursor, vendor=vendor, now=now)
                cursor.execute(_SNAPSHOT_END.sql(vendor))
            else:
                db.connect()
                with sqlite3.connect(target) as copy:
                    db.connection.backup(copy)
                copy.close()
                with sqlite3.connect(target) as copy:
                    copy.execute(_COPY_SESSIONS_GONE.sql(vendor, table=SESSIONS))  # a backup is not a sign-in
                    manifest = _manifest(copy.cursor(), vendor=vendor, now=now)
                copy.close()
    finally:
        db.close()
    return manifest, target


def _pg_dump(settings_dict: dict, *, snapshot: str, target: Path) -> None:
    argv = ["pg_dump", "--format=custom", "--no-password", f"--snapshot={snapshot}", f"--file={target}"]
    argv += [f"--exclude-table-data={SESSIONS}"]  # a backup is not a sign-in
    argv += pg_connection_args(settings_dict)
    pg_run(argv, env=pg_env(settings_dict), what="pg_dump")


def _manifest(cursor, *, vendor: str, now: datetime.datetime) -> dict:
    migrations: dict[str, list[str]] = {}
    cursor.execute(_MIGRATIONS.sql(vendor))
    for app, name in cursor.fetchall():
        migrations.setdefault(app, []).append(name)
    users, dips = User._meta.db_table, Dip._meta.db_table
    counts = {
        "members": _count(cursor, ROWS, vendor=vendor, table=users),
        "dips": _count(cursor, ROWS, vendor=vendor, table=dips),
        "photos": _count(cursor, PHOTOS, vendor=vendor, table=dips),
    }
    return {
        "format": FORMAT,
        "app": "Koud water challenge",
        "version": app_version(),
        "created_at": now.isoformat(timespec="seconds"),
        "database": {"vendor": vendor, "file": DATABASE_FILES[vendor]},
        "migrations": migrations,
        "counts": counts,
        "media": _media_manifest(),
        "not_inside": NOT_INSIDE,
    }


def _count(cursor, statement: Statement, *, vendor: str, table: str) -> int:
    cursor.execute(statement.sql(vendor, table=table))
    return int(cursor.fetchone()[0])


# --- the media folder -----------------------------------------------------------------------------------------


def photos_are_local() -> bool:
    return isinstance(storages["photos"], FileSystemStorage)


def _media_manifest() -> dict:
    if photos_are_local():
        left_out = [{"map": f"{name}/", "waarom": why} for name, why in MEDIA_LEFT_OUT.items()]
        return {"included": True, "folder": MEDIA, "left_out": left_out}
    options = settings.STORAGES["photos"].get("OPTIONS", {})
    return {
        "included": False,
        "storage": "s3",
        "bucket": options.get("bucket_name", ""),
        "endpoint": options.get("endpoint_url") or "",
        "waarom": (
            "De foto's, badgeafbeeldingen en exports staan in de S3-bucket, niet op deze machine. Kopieer de "
            "bucket apart (zie docs/operations.md, 'Back-up en herstel'); herstel zet alleen de database terug."
        ),
    }


def _media_files(root: Path, *, skip: list[Path]) -> Iterator[tuple[Path, str]]:
    """Every regular file under `root` with its name in the archive, one folder at a time (a generator:
    nothing is collected), leaving out MEDIA_LEFT_OUT, the folders in `skip` and symbolic links."""
    if not root.is_dir():
        return
    left_out = {(root / name).resolve() for name in MEDIA_LEFT_OUT} | {path.resolve() for path in skip}
    folders = [root]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:  # as the folder lists them: nothing collected, not even to sort
                path = Path(entry.path)
                if entry.is_dir(follow_symlinks=False):
                    if path.resolve() not in left_out:
                        folders.append(path)
                elif entry.is_file(follow_symlinks=False):
                    yield path, MEDIA + path.relative_to(root).as_posix()


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
    tar.addfile(info, BytesIO(data))


def _add_file(tar: tarfile.TarFile, name: str, path: Path) -> None:
    """One file, copied in COPY_BUFFER pieces. A TarInfo of our own, not gettarinfo(): that remembers every
    inode it saw; and the members list tarfile keeps is emptied, so memory does not grow per file."""
    with open(path, "rb") as file:
        stat = os.fstat(file.fileno())
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = stat.st_size, int(stat.st_mtime), 0o600
        tar.addfile(info, file)
    tar.members.clear()  # type: ignore[attr-defined]  # the list behind getmembers(), not in the stubs


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
