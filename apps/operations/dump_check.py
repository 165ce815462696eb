"""The database file of an archive, read before a single statement of it runs.

A PostgreSQL dump is a list of statements `pg_restore` will run with the rights of the app's database user.
`backup` only ever writes this app's tables, their rows, sequences, indexes, constraints, its two tally
functions and their triggers, and the pg_trgm extension; anything else (another schema, a view, a rule, a
function or table of another name, a role, a large object) means the archive was changed, and nothing of it
runs. A SQLite file is checked the same way (its own tables and indexes only) and for damage. Then the rows
are counted as they would be restored, and must be the counts the manifest promises.
"""

import re
import shutil
import sqlite3
import subprocess
import tarfile
from contextlib import closing
from pathlib import Path
from typing import IO

from django.apps import apps
from django.db import connection

from apps.accounts.models import User
from apps.challenges.models import Dip
from apps.core.sql_registry import register

from .archive_check import NOTHING_CHANGED
from .backup import COPY_BUFFER, PHOTOS, ROWS, BackupError
from .postgres_client import pg_env
from .refusals import OperationsRefusal

# Tables `migrate` makes without a model: the migration records and the database cache.
OWN_TABLES = {"django_migrations", "django_cache"}
_PG_LISTS = "a PostgreSQL dump is read through pg_restore --list"
_QUICK_CHECK = register("restore.sqlite_quick_check", sqlite="PRAGMA quick_check", without=_PG_LISTS)
_SQLITE_OBJECTS = register(
    "restore.sqlite_objects", sqlite="SELECT type, name, tbl_name FROM sqlite_master", without=_PG_LISTS
)
EXTENSIONS = {"pg_trgm", "plpgsql"}
SCHEMAS = {"-", "public"}
# The kinds of entry `pg_restore --list` shows that a dump of this app has, longest first (a kind may be two words).
ENTRY_KINDS = (
    "SEQUENCE OWNED BY",
    "SEQUENCE SET",
    "FK CONSTRAINT",
    "TABLE DATA",
    "DEFAULT ACL",
    "CONSTRAINT",
    "EXTENSION",
    "FUNCTION",
    "SEQUENCE",
    "TRIGGER",
    "COMMENT",
    "DEFAULT",
    "INDEX",
    "TABLE",
    "ACL",  # privileges: skipped by --no-privileges
)
ENTRY = re.compile(r"^\d+; \d+ \d+ (?P<rest>.*)$")
MESSAGE_DUMP_DAMAGED = (
    "De database in de back-up is beschadigd ({error}). " + NOTHING_CHANGED + " Neem een andere back-up."
)
MESSAGE_DUMP_FOREIGN = (
    "De database in de back-up bevat iets wat een back-up van deze app nooit bevat ({what}). Dit archief is "
    "veranderd; er is niets van uitgevoerd. " + NOTHING_CHANGED + " Neem een andere back-up."
)
MESSAGE_COUNTS = (
    "De aantallen in manifest.json ({promised}) kloppen niet met de database in de back-up ({found}). Dit archief "
    "is veranderd of beschadigd. " + NOTHING_CHANGED + " Neem een andere back-up."
)


def dump_extract(file: IO[bytes], *, manifest: dict, scratch: Path) -> Path:
    """The database file (the archive's second entry, archive_read checked it) copied into `scratch`."""
    file.seek(0)
    with tarfile.open(fileobj=file, mode="r:") as tar:
        tar.next()
        member = tar.next()
        assert member is not None and member.name == manifest["database"]["file"]  # noqa: S101 - archive_read saw it
        dump = scratch / member.name
        with tar.extractfile(member) as source, open(dump, "wb") as out:  # type: ignore[union-attr]
            shutil.copyfileobj(source, out, COPY_BUFFER)
    return dump


def dump_check(dump: Path, *, manifest: dict) -> None:
    found = _pg_check(dump) if manifest["database"]["vendor"] == "postgresql" else _sqlite_check(dump)
    promised = {key: manifest["counts"][key] for key in found}
    if found != promised:
        raise BackupError(
            MESSAGE_COUNTS.format(promised=_counts(promised), found=_counts(found)),
            code=OperationsRefusal.ARCHIVE_TAMPERED,
        )


def _counts(counts: dict[str, int]) -> str:
    return f"{counts['members']} leden, {counts['dips']} plonsen, {counts['photos']} foto's"


def _ours(name: str) -> bool:
    """A table, sequence or function of this app (also one of a model a later version removed)."""
    if name in OWN_TABLES or name in connection.introspection.django_table_names():
        return True
    return any(name.startswith(f"{config.label}_") for config in apps.get_app_configs()) or name.startswith("django_")


# --- PostgreSQL ---------------------------------------------------------------------------------------------------


def _pg_check(dump: Path) -> dict[str, int]:
    listing = _pg_restore(["--list", str(dump)])
    for line in listing.splitlines():
        if line.strip() and not line.startswith(";") and (what := _pg_foreign(line)):
            raise BackupError(MESSAGE_DUMP_FOREIGN.format(what=what), code=OperationsRefusal.ARCHIVE_TAMPERED)
    members, _ = _pg_rows(dump, User._meta.db_table)
    dips, photos = _pg_rows(dump, Dip._meta.db_table, column="photo")
    return {"members": members, "dips": dips, "photos": photos}


def _pg_foreign(line: str) -> str | None:
    """What is foreign in one entry of the dump's table of contents, in Dutch; None when it is this app's."""
    entry = ENTRY.match(line)
    if entry is None:
        return f"een onleesbare regel: {line[:80]!r}"
    rest = entry["rest"]
    kind = next((kind for kind in ENTRY_KINDS if rest.startswith(kind + " ")), None)
    if kind is None:
        return f"een {rest.split(' ', 1)[0]}"
    schema, *names = rest[len(kind) + 1 :].split(" ")
    name = names[0].split("(", 1)[0] if names else ""
    if schema not in SCHEMAS:
        return f"het schema {schema}"
    if kind in ("ACL", "DEFAULT ACL", "INDEX"):
        return None
    if kind == "EXTENSION":
        return None if name in EXTENSIONS else f"de extensie {name}"
    if kind == "COMMENT":
        return None if name == "EXTENSION" and len(names) > 1 and names[1] in EXTENSIONS else "een commentaar"
    return None if _ours(name) else f"{kind} {name}"


def _pg_restore(args: list[str]) -> str:
    if shutil.which("pg_restore") is None:
        raise BackupError(
            "pg_restore ontbreekt op deze machine. Installeer de PostgreSQL-client (Debian: postgresql-client), "
            "in dezelfde hoofdversie als de databaseserver of nieuwer.",
            code=OperationsRefusal.TOOL_MISSING,
        )
    done = subprocess.run(["pg_restore", *args], env=pg_env({}), capture_output=True, text=True, check=False)  # noqa: S603, S607
    if done.returncode != 0:
        raise BackupError(
            MESSAGE_DUMP_DAMAGED.format(error=done.stderr.strip()[-500:]), code=OperationsRefusal.ARCHIVE_DAMAGED
        )
    return done.stdout


def _pg_rows(dump: Path, table: str, *, column: str | None = None) -> tuple[int, int]:
    """The rows of `table` as pg_restore would load them, and how many have a non-empty `column`."""
    argv = ["pg_restore", "--data-only", f"--table={table}", "--file=-", str(dump)]
    rows = filled = 0
    with subprocess.Popen(argv, env=pg_env({}), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as child:  # noqa: S603
        assert child.stdout is not None  # noqa: S101 - PIPE
        index, inside = None, False
        for line in child.stdout:
            if not inside:
                if line.startswith(b"COPY ") and line.rstrip().endswith(b"FROM stdin;"):
                    columns = line[line.index(b"(") + 1 : line.rindex(b")")].decode().split(",")
                    names = [name.strip().strip('"') for name in columns]
                    index = names.index(column) if column in names else None
                    inside = True
                continue
            if line == b"\\.\n":
                inside = False
                continue
            rows += 1
            if index is not None:
                fields = line.rstrip(b"\n").split(b"\t")
                filled += index < len(fields) and fields[index] not in (b"", b"\\N")
    if child.returncode != 0:
        raise BackupError(
            MESSAGE_DUMP_DAMAGED.format(error=f"pg_restore code {child.returncode}"),
            code=OperationsRefusal.ARCHIVE_DAMAGED,
        )
    return rows, filled


# --- SQLite -------------------------------------------------------------------------------------------------------


def _sqlite_check(dump: Path) -> dict[str, int]:
    users, dips = User._meta.db_table, Dip._meta.db_table
    try:
        with closing(sqlite3.connect(dump.as_uri() + "?mode=ro", uri=True)) as db:
            # A file that is not a database fails here ("file is not a database").
            if db.execute(_QUICK_CHECK.sql("sqlite")).fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("quick_check")
            for kind, name, table in db.execute(_SQLITE_OBJECTS.sql("sqlite")):
                if kind not in ("table", "index", "trigger") or not (_ours(table) or table.startswith("sqlite_")):
                    raise BackupError(
                        MESSAGE_DUMP_FOREIGN.format(what=f"{kind} {name}"), code=OperationsRefusal.ARCHIVE_TAMPERED
                    )
            return {
                "members": db.execute(ROWS.sql("sqlite", table=users)).fetchone()[0],
                "dips": db.execute(ROWS.sql("sqlite", table=dips)).fetchone()[0],
                "photos": db.execute(PHOTOS.sql("sqlite", table=dips)).fetchone()[0],
            }
    except sqlite3.DatabaseError as error:
        raise BackupError(MESSAGE_DUMP_DAMAGED.format(error=error), code=OperationsRefusal.ARCHIVE_DAMAGED) from error
