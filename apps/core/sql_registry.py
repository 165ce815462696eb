"""Every SQL statement of ours that the ORM does not write, declared where it is used (`register`), so that one
test (tests/core/test_sql_registry.py) runs each of them on PostgreSQL and on SQLite, and fails on a statement
written at a `cursor.execute` without being declared here.

    TRY_LOCK = register("jobs.try_lock", postgresql="SELECT pg_try_advisory_lock(%s)", example=[7],
                        without="SQLite has no session locks: the job's lock is a file lock there")
    cursor.execute(TRY_LOCK.sql(connection.vendor), [key])

A statement has its SQL per database, or one text for both (`both=`). A database it has no SQL for is named
with the reason (`without=`): the test requires that reason. `example` are parameters the test runs it with,
`parts` the names filled into `{placeholders}` (table names from the models, never input). A script is several
statements run in order (`run`). `alone`: it begins or ends a transaction or holds a session lock, so the test
runs it on a connection of its own. `needs`: statements the test runs first, in the same rolled-back
transaction (a trigger is dropped before it is made again).
"""

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

VENDORS = ("postgresql", "sqlite")


@dataclass(frozen=True)
class Statement:
    name: str
    module: str
    by_vendor: dict[str, tuple[str, ...]]
    without: str = ""
    example: Sequence = ()
    parts: dict[str, str] = field(default_factory=dict)
    alone: bool = False
    needs: tuple[str, ...] = ()

    def script(self, vendor: str, **parts: str) -> list[str]:
        if vendor not in self.by_vendor:
            raise NotImplementedError(f"{self.name} has no SQL for {vendor}: {self.without}")
        return [text.format(**parts) if parts else text for text in self.by_vendor[vendor]]

    def sql(self, vendor: str, **parts: str) -> str:
        (text,) = self.script(vendor, **parts)
        return text

    def run(self, cursor, vendor: str, **parts: str) -> None:
        for text in self.script(vendor, **parts):
            cursor.execute(text)


REGISTRY: dict[str, Statement] = {}


def _texts(sql: str | Sequence[str] | None) -> tuple[str, ...] | None:
    if sql is None:
        return None
    return (sql,) if isinstance(sql, str) else tuple(sql)


def register(
    name: str,
    *,
    both: str | Sequence[str] | None = None,
    postgresql: str | Sequence[str] | None = None,
    sqlite: str | Sequence[str] | None = None,
    without: str = "",
    example: Sequence = (),
    parts: dict[str, str] | None = None,
    alone: bool = False,
    needs: tuple[str, ...] = (),
    module: str = "",
) -> Statement:
    if both is not None and (postgresql is not None or sqlite is not None):
        raise ValueError(f"{name}: `both` or SQL per database, not the two")
    found = {
        "postgresql": _texts(both if both is not None else postgresql),
        "sqlite": _texts(both if both is not None else sqlite),
    }
    by_vendor = {vendor: texts for vendor, texts in found.items() if texts}
    if not by_vendor:
        raise ValueError(f"{name}: no SQL")
    if len(by_vendor) < len(VENDORS) and not without.strip():
        raise ValueError(f"{name}: no SQL for {set(VENDORS) - set(by_vendor)}, and no reason why (`without`)")
    if name in REGISTRY and REGISTRY[name].by_vendor != by_vendor:
        raise ValueError(f"{name} is registered twice")
    module = module or sys._getframe(1).f_globals["__name__"]  # the declaring module, for the test's guard
    statement = Statement(name, module, by_vendor, without, tuple(example), dict(parts or {}), alone, needs)
    REGISTRY[name] = statement
    return statement
