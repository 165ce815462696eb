"""What `restore` reads of an archive before it touches anything (apps/operations/restore.py).

`archive_read` reads the manifest and every entry's header once: the manifest's keys and their types, the
database file where it belongs, nothing but regular files under `media/` (no `..`, no absolute name, no
link, device or fifo), and whether it all fits on the disk. `dump_check` then reads the database file as the
database will see it (apps/operations/dump_check.py): only this app's tables and functions, and the counts the
manifest promises. Each refusal says in Dutch what is wrong and what to do; nothing has been changed yet.
"""

import json
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from django.conf import settings
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from .backup import DATABASE_FILES, FORMAT, MANIFEST, MEDIA, MEDIA_LEFT_OUT, BackupError, app_version
from .refusals import OperationsRefusal

MANIFEST_MAX_BYTES = 1024 * 1024
NOTHING_CHANGED = "Er is niets veranderd aan de database en de mediamap."
MESSAGE_NOT_AN_ARCHIVE = "{name} is geen back-up van Koud water challenge (geen manifest.json vooraan)."
MESSAGE_DAMAGED = "{name} is onvolledig of beschadigd ({error}). Er is niets veranderd; neem een andere back-up."
MESSAGE_MANIFEST = (
    "De manifest.json in {name} klopt niet: {problem}. Een back-up van `manage.py backup` heeft dat altijd goed; "
    "dit archief is veranderd of beschadigd. " + NOTHING_CHANGED + " Neem een andere back-up."
)
MESSAGE_MEMBER = (
    "De back-up bevat {what}: {entry!r}. Een back-up van `manage.py backup` bevat alleen manifest.json, de "
    "database en gewone bestanden onder media/; dit archief is veranderd of beschadigd. "
    + NOTHING_CHANGED
    + " Neem een andere back-up."
)
MESSAGE_NO_ROOM = (
    "Er is te weinig ruimte op de schijf van {folder}: de back-up heeft {needed} MB nodig, er is {free} MB vrij. "
    + NOTHING_CHANGED
    + " Maak ruimte vrij en probeer het opnieuw."
)
MESSAGE_NEWER = (
    "Deze back-up komt van een nieuwere versie van de app ({version}; deze code is {current}): deze code kent "
    "{count} van de toegepaste migraties niet ({examples}). Herstel met die versie van de app (of een nieuwere)."
)
MESSAGE_OTHER_DATABASE = (
    "Deze back-up is van een {archive}-database, maar deze installatie gebruikt {target}. "
    "Zet DATABASE_URL goed en probeer het opnieuw."
)
# tarfile's kinds of entry, as the refusal names them.
KINDS = (
    ("issym", "een snelkoppeling (symlink)"),
    ("islnk", "een harde koppeling (hard link)"),
    ("isdir", "een map"),
    ("ischr", "een apparaat"),
    ("isblk", "een apparaat"),
    ("isfifo", "een fifo (pipe)"),
)


@dataclass
class ArchiveContents:
    manifest: dict
    database_size: int
    media_files: int
    media_bytes: int


def archive_read(file: IO[bytes], *, name: str) -> ArchiveContents:
    """The manifest and every entry's header, read once from the start of `file` (the data is skipped)."""
    try:
        tar = tarfile.open(fileobj=file, mode="r:")
    except tarfile.TarError as error:
        raise BackupError(MESSAGE_NOT_AN_ARCHIVE.format(name=name), code=OperationsRefusal.NOT_AN_ARCHIVE) from error
    try:
        with tar:
            manifest = _manifest_read(tar, name=name)
            database = tar.next()
            expected = manifest["database"]["file"]
            if database is None:
                raise BackupError(
                    f"De database ontbreekt in {name}: het bestand is onvolledig. {NOTHING_CHANGED} "
                    "Neem een andere back-up.",
                    code=OperationsRefusal.ARCHIVE_INCOMPLETE,
                )
            if database.name != expected or not database.isreg() or database.size == 0:
                raise BackupError(
                    MESSAGE_MEMBER.format(
                        what=f"iets anders dan de database {expected} als tweede", entry=database.name
                    ),
                    code=OperationsRefusal.UNEXPECTED_MEMBER,
                )
            files = size = 0
            while (member := tar.next()) is not None:
                media_relative(member, included=manifest["media"]["included"])
                files, size = files + 1, size + member.size
                tar.members.clear()  # type: ignore[attr-defined]  # memory stays flat per photo
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BackupError(
            MESSAGE_DAMAGED.format(name=name, error=error), code=OperationsRefusal.ARCHIVE_DAMAGED
        ) from error
    contents = ArchiveContents(manifest=manifest, database_size=database.size, media_files=files, media_bytes=size)
    _check_code(manifest)
    _check_database(manifest)
    _check_room(contents)
    return contents


def media_relative(member: tarfile.TarInfo, *, included: bool = True) -> PurePosixPath:
    """The path under MEDIA_ROOT of a `media/…` entry; refused when it is anything else."""
    name = member.name
    relative = PurePosixPath(name[len(MEDIA) :]) if name.startswith(MEDIA) else None
    if (
        relative is None
        or relative.is_absolute()
        or not relative.parts
        or ".." in relative.parts
        or str(PurePosixPath(name)) != name  # "media//x", "media/./x", a trailing "/"
    ):
        raise BackupError(
            MESSAGE_MEMBER.format(what="een naam buiten media/", entry=name), code=OperationsRefusal.UNEXPECTED_MEMBER
        )
    for test, what in KINDS:
        if getattr(member, test)():
            raise BackupError(MESSAGE_MEMBER.format(what=what, entry=name), code=OperationsRefusal.UNEXPECTED_MEMBER)
    if not member.isreg():
        raise BackupError(
            MESSAGE_MEMBER.format(what="iets anders dan een gewoon bestand", entry=name),
            code=OperationsRefusal.UNEXPECTED_MEMBER,
        )
    if relative.parts[0] in MEDIA_LEFT_OUT or not included:
        raise BackupError(
            MESSAGE_MEMBER.format(what="een bestand dat een back-up nooit bevat", entry=name),
            code=OperationsRefusal.UNEXPECTED_MEMBER,
        )
    return relative


def _manifest_read(tar: tarfile.TarFile, *, name: str) -> dict:
    first = tar.next()
    if first is None or first.name != MANIFEST or not first.isreg() or first.size > MANIFEST_MAX_BYTES:
        raise BackupError(MESSAGE_NOT_AN_ARCHIVE.format(name=name), code=OperationsRefusal.NOT_AN_ARCHIVE)
    try:
        manifest = json.load(tar.extractfile(first))  # type: ignore[arg-type]
    except ValueError as error:  # not JSON, not UTF-8
        raise BackupError(MESSAGE_NOT_AN_ARCHIVE.format(name=name), code=OperationsRefusal.NOT_AN_ARCHIVE) from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(MESSAGE_NOT_AN_ARCHIVE.format(name=name), code=OperationsRefusal.NOT_AN_ARCHIVE)
    if problem := manifest_problem(manifest):
        raise BackupError(MESSAGE_MANIFEST.format(name=name, problem=problem), code=OperationsRefusal.MANIFEST_INVALID)
    return manifest


def manifest_problem(manifest: dict) -> str | None:
    """What is wrong with the manifest's keys and their types, in Dutch; None when nothing is."""
    for key, kind, what in (
        ("version", str, "tekst"),
        ("created_at", str, "tekst"),
        ("database", dict, "object"),
        ("migrations", dict, "object met per app een lijst van migraties"),
        ("counts", dict, "object met aantallen"),
        ("media", dict, "object"),
    ):
        if key not in manifest:
            return f"'{key}' ontbreekt"
        if not isinstance(manifest[key], kind):
            return f"'{key}' is geen {what}"
    database = manifest["database"]
    if database.get("vendor") not in DATABASE_FILES or database.get("file") != DATABASE_FILES[database["vendor"]]:
        return "'database' noemt geen PostgreSQL- of SQLite-database met de bijbehorende bestandsnaam"
    for app, names in manifest["migrations"].items():
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            return f"'migrations' heeft voor '{app}' geen lijst van migratienamen"
    for key in ("members", "dips", "photos"):
        value = manifest["counts"].get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"'counts' heeft geen aantal '{key}'"
    if not isinstance(manifest["media"].get("included"), bool):
        return "'media' zegt niet of de bestanden erin zitten ('included')"
    return None


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
                version=manifest["version"],
                current=app_version(),
                count=len(unknown),
                examples=", ".join(unknown[:5]) + (", …" if len(unknown) > 5 else ""),
            ),
            code=OperationsRefusal.ARCHIVE_NEWER,
        )


def _check_database(manifest: dict) -> None:
    names = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
    archived, target = manifest["database"]["vendor"], connection.vendor
    if archived != target:
        raise BackupError(
            MESSAGE_OTHER_DATABASE.format(archive=names.get(archived, archived), target=names.get(target, target)),
            code=OperationsRefusal.OTHER_DATABASE,
        )


def _check_room(contents: ArchiveContents) -> None:
    """The database file is copied into a temporary folder and the media into MEDIA_ROOT: both must fit
    (together, when they share a disk), or the restore would stop halfway with the database replaced."""
    needs: dict[int, tuple[Path, int]] = {}
    wanted = ((Path(tempfile.gettempdir()), contents.database_size), (Path(settings.MEDIA_ROOT), contents.media_bytes))
    for folder, size in wanted:
        existing = next(parent for parent in (folder, *folder.parents) if parent.exists())
        device = existing.stat().st_dev
        shown, before = needs.get(device, (existing, 0))
        needs[device] = (shown, before + size)
    for folder, needed in needs.values():
        free = shutil.disk_usage(folder).free
        if needed > free:
            raise BackupError(
                MESSAGE_NO_ROOM.format(folder=folder, needed=needed // 2**20 + 1, free=free // 2**20),
                code=OperationsRefusal.NO_ROOM,
            )
