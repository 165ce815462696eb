"""`make run` writes the embedded SQLite file from three processes (runserver, the worker, the scheduler). A
transaction that reads first and writes later must wait for another writer, never fail with "database is
locked", which the member sees as a 500."""

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs in a process of its own with make run's settings (config.settings.local, manage.py's default) on a file.
TRANSACTION_AND_A_SECOND_WRITER = textwrap.dedent(
    """
    import sqlite3, sys
    import django
    django.setup()
    from django.db import connection, transaction

    path = sys.argv[1]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE dips (id integer PRIMARY KEY)")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM dips").fetchall()
        # Another process meanwhile: it can read, but cannot start writing until this transaction ends.
        print(other.execute("SELECT count(*) FROM dips").fetchone()[0])
        try:
            other.execute("BEGIN IMMEDIATE")
            print("second writer began")
        except sqlite3.OperationalError as error:
            print(error)
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO dips DEFAULT VALUES")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO dips DEFAULT VALUES")
    other.execute("COMMIT")
    print(other.execute("SELECT count(*) FROM dips").fetchone()[0])
    """
)


def test_a_transaction_on_the_embedded_database_holds_the_write_lock_from_its_start(tmp_path):
    database = tmp_path / "db.sqlite3"
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings.local", DATABASE_URL=f"sqlite:///{database}")
    result = subprocess.run(
        [sys.executable, "-c", TRANSACTION_AND_A_SECOND_WRITER, str(database)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    # Read while the transaction was open (WAL), kept out as a writer until it ended, then wrote after it.
    assert result.stdout.splitlines() == ["0", "database is locked", "2"]
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
