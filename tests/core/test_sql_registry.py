"""Every SQL statement the ORM does not write is declared in apps/core/sql_registry.py, and each runs on the database
of this run: the normal suite's PostgreSQL, and SQLite in `make test`'s SQLITE_CHECK pass. A statement without SQL for
one of them says why; a `cursor.execute` (or `.raw`, `RawSQL`, `.extra`, `RunSQL`) with SQL written at the call
fails the guard below."""

import ast
import datetime
import importlib
from pathlib import Path

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from apps.core.prepared import MADE, PreparedUnion
from apps.core.sql_registry import REGISTRY, VENDORS
from tests.factories import BadgeFactory, DipFactory, UserBadgeFactory, UserChallengeFactory

ROOT = Path(__file__).resolve().parents[2]
CALLS = {"execute", "executemany", "executescript", "raw", "extra", "RawSQL", "RunSQL"}
# Where SQL is written without the registry, and why that is safe.
NOT_OURS = {
    "apps/core/sql_registry.py": "the registry runs its own scripts",
    "apps/core/prepared.py": "SQL compiled by the ORM: each prepared query is run below, on both databases",
    "apps/core/trigram.py": "a migration operation: every test database, PostgreSQL's and SQLite's, runs it",
    "apps/operations/database_swap.py": "CREATE, ALTER and DROP DATABASE, outside a transaction: "
    "tests/operations/test_restore_load.py and the restores of tests/operations run them",
    "apps/moving_in/source.py": "reads the old app's database (tests/moving_in run it against one made like it)",
}


def _sites() -> dict[Path, list[tuple[int, str]]]:
    """Per file of apps/ and config/ (migrations aside: each test database runs them), the calls that take SQL
    and the line of each whose SQL is not a registered statement's `.sql(...)`."""
    found: dict[Path, list[tuple[int, str]]] = {}
    for path in sorted([*ROOT.joinpath("apps").rglob("*.py"), *ROOT.joinpath("config").rglob("*.py")]):
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" in relative or relative in NOT_OURS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not (node.args or node.keywords):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in CALLS:
                continue
            first = node.args[0] if node.args else node.keywords[0].value
            registered = (
                isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr == "sql"
            )
            found.setdefault(path, []).append((node.lineno, "" if registered else ast.unparse(first)))
    return found


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


SITES = _sites()
# Every module of the apps, and of config/ with SQL: its statements are registered, and its prepared queries made,
# when it is imported.
for _path in sorted({*ROOT.joinpath("apps").rglob("*.py"), *SITES}):
    if "/migrations/" not in _path.as_posix():
        importlib.import_module(_module(_path))
# Made per list length when a page first asks for it: one of each, as /samen makes them.
LAZY_PREPARED = ("apps.together.plans._prepared_listed_events", "apps.together.selectors._prepared_meetups")
for _name in LAZY_PREPARED:
    _factory = importlib.import_module(_name.rpartition(".")[0])
    getattr(_factory, _name.rpartition(".")[2])(21)


def test_every_sql_of_ours_comes_from_the_registry():
    unregistered = [
        f"{path.relative_to(ROOT)}:{line}: {sql}" for path, calls in SITES.items() for line, sql in calls if sql
    ]
    assert not unregistered, "SQL written at the call: declare it with apps.core.sql_registry.register"
    declaring = {statement.module for statement in REGISTRY.values()}
    for path in SITES:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        assert module in declaring, f"{module} runs SQL but declares none"


def test_the_guard_finds_sql_written_at_the_call(tmp_path, monkeypatch):
    app = tmp_path / "apps"
    app.mkdir()
    (app / "written.py").write_text('def f(cursor):\n    cursor.execute("SELECT 1")\n    cursor.execute(A.sql("x"))\n')
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert _sites() == {app / "written.py": [(2, "'SELECT 1'"), (3, "")]}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_database_without_sql_is_declared_with_a_reason(name):
    statement = REGISTRY[name]
    assert set(statement.by_vendor) <= set(VENDORS)
    if set(statement.by_vendor) != set(VENDORS):
        assert statement.without.strip()


@pytest.fixture
def club(db):
    """A member with a card, dips and a badge: rows for every statement to read, count, lock and recount."""
    card = UserChallengeFactory()
    for _ in range(3):
        DipFactory(user=card.user, user_challenge=card)
    UserBadgeFactory(user=card.user, badge=BadgeFactory())
    return card


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_statement_runs_on_this_database(name, club):
    statement = REGISTRY[name]
    vendor = connection.vendor
    if vendor not in statement.by_vendor:
        with pytest.raises(NotImplementedError):
            statement.script(vendor, **statement.parts)
        return
    if statement.alone:  # it begins or ends a transaction, or holds a session lock: a connection of its own
        alone = connections.create_connection("default")
        try:
            with alone.cursor() as cursor:
                for sql in statement.script(vendor, **statement.parts):
                    cursor.execute(sql, statement.example or None)
        finally:
            alone.close()
        return
    with transaction.atomic(), connection.cursor() as cursor:
        for needed in statement.needs:
            REGISTRY[needed].run(cursor, vendor, **REGISTRY[needed].parts)
        for sql in statement.script(vendor, **statement.parts):
            cursor.execute(sql, statement.example or None)
        transaction.set_rollback(True)


def _example(name: str, kind: type, card):
    """A parameter's value from the club's rows: her id, her card's, its challenge's, today; other ids 0."""
    if kind is datetime.date:
        return timezone.localdate()
    return {"user_id": card.user_id, "card_id": card.pk, "challenge_id": card.challenge_id}.get(name, 0)


def _plain(rows) -> list:
    return sorted((tuple(row.values()) if isinstance(row, dict) else tuple(row) for row in rows), key=repr)


def test_every_module_with_a_prepared_query_makes_it_here():
    """A prepared query made only later (inside a function) is not run below: add its factory to LAZY_PREPARED."""
    declaring = {
        _module(path)
        for path in ROOT.joinpath("apps").rglob("*.py")
        if path.name != "prepared.py" and ("PreparedQuery(" in path.read_text() or "PreparedUnion(" in path.read_text())
    }
    made = {prepared._build.__module__ for prepared in MADE}
    assert declaring <= made


@pytest.mark.parametrize("prepared", MADE, ids=lambda made: f"{made._build.__module__}:{made._build.__qualname__}")
def test_each_prepared_query_runs_on_this_database_and_gives_the_orms_rows(prepared, club):
    if isinstance(prepared, PreparedUnion):
        branches = [(index, tuple(row)) for index, queryset in enumerate(prepared._build()) for row in queryset]
        assert len(prepared.rows()) == min(len(branches), prepared._limit)
        return
    values = {name: _example(name, kind, club) for name, kind in prepared._parameters.items()}
    assert _plain(prepared.rows(**values)) == _plain(prepared._build(**values))
