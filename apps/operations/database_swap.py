"""PostgreSQL: the archive's dump is loaded into a new database beside the site's, and only a load that finished
takes the site's database's name (two renames in one transaction). A load that fails halfway (a row a constraint
refuses, a full disk, an interrupted restore) leaves the site's database exactly as it was; the half-loaded one is
dropped.

The statements act on databases, not in one: they run on the server's maintenance database (`postgres`), and
CREATE and DROP DATABASE cannot run inside a transaction, so they are not in apps/core/sql_registry.py (which runs
each statement in one); tests/operations/test_restore_load.py runs each of them.
"""

from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import errors, sql

from .archive_check import NOTHING_CHANGED
from .backup import MESSAGE_NO_DATABASE
from .postgres_client import pg_connection_args, pg_env, pg_run
from .refusals import BackupError, OperationsRefusal

MAINTENANCE_DATABASE = "postgres"
MESSAGE_CANNOT_CREATE = (
    "De databasegebruiker mag geen database aanmaken ({error}). Herstellen laadt de back-up eerst in een nieuwe "
    "database naast de huidige, zodat een mislukte poging niets kapotmaakt; geef de gebruiker het recht CREATEDB. "
    + NOTHING_CHANGED
)
MESSAGE_IN_USE = (
    "De database is nog in gebruik ({error}): stop eerst de site (docker compose stop web worker scheduler). "
    + NOTHING_CHANGED
)


def database_load(dump: Path, *, settings_dict: dict) -> None:
    """Load `dump` (pg_restore's custom format) and make it the database `settings_dict` names. Every connection
    to that database must be closed: a database in use cannot be renamed (BackupError, nothing changed)."""
    name = settings_dict["NAME"]
    loading, before = f"{name}_restoring", f"{name}_before_restore"
    with _server(settings_dict) as server:
        _drop(server, loading)  # what an interrupted restore left behind
        _create_like(server, loading, like=name)
    try:
        argv = ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction"]
        argv += ["--no-password", *pg_connection_args({**settings_dict, "NAME": loading}), str(dump)]
        pg_run(argv, env=pg_env(settings_dict), what="pg_restore")
        with _server(settings_dict) as server:
            try:
                with server.transaction():
                    _rename(server, name, before)
                    _rename(server, loading, name)
            except errors.ObjectInUse as error:
                raise BackupError(MESSAGE_IN_USE.format(error=error), code=OperationsRefusal.TARGET_IN_USE) from error
            _drop(server, before)
    finally:
        with _server(settings_dict) as server:
            _drop(server, loading)  # a load that failed (after a swap that happened, there is none of that name)


@contextmanager
def _server(settings_dict: dict):
    """An autocommit connection to the server's maintenance database."""
    options = settings_dict.get("OPTIONS") or {}
    try:
        server = psycopg.connect(
            dbname=MAINTENANCE_DATABASE,
            host=settings_dict.get("HOST") or None,
            port=settings_dict.get("PORT") or None,
            user=settings_dict.get("USER") or None,
            password=settings_dict.get("PASSWORD") or None,
            sslmode=options.get("sslmode"),
            sslrootcert=options.get("sslrootcert"),
            autocommit=True,
        )
    except psycopg.OperationalError as error:
        raise BackupError(
            MESSAGE_NO_DATABASE.format(error=str(error).strip()), code=OperationsRefusal.NO_DATABASE
        ) from error
    with server:
        yield server


def _create_like(server: psycopg.Connection, name: str, *, like: str) -> None:
    """An empty database with the encoding and collation of `like`."""
    encoding, collate, ctype = server.execute(
        "SELECT pg_encoding_to_char(encoding), datcollate, datctype FROM pg_database WHERE datname = %s", [like]
    ).fetchone() or ("UTF8", "C", "C")
    try:
        server.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING {} LC_COLLATE {} LC_CTYPE {}").format(
                sql.Identifier(name), sql.Literal(encoding), sql.Literal(collate), sql.Literal(ctype)
            )
        )
    except errors.InsufficientPrivilege as error:
        raise BackupError(
            MESSAGE_CANNOT_CREATE.format(error=str(error).strip()), code=OperationsRefusal.CANNOT_CREATE_DATABASE
        ) from error


def _rename(server: psycopg.Connection, name: str, new_name: str) -> None:
    server.execute(sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(name), sql.Identifier(new_name)))


def _drop(server: psycopg.Connection, name: str) -> None:
    server.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
