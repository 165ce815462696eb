"""Queries compiled once: a read that a page makes on every render, the same query every time, is turned into
SQL once per process and database and only executed after that (issue 37: compiling a queryset cost more of
the CPU of /club's feed than running it).

    NEWEST = PreparedQuery(lambda: Dip.objects.filter(...).order_by("-created_at").values_list("pk", "spot")[:21])
    rows = NEWEST.rows()  # plain tuples, in the order of values_list, with the fields' own conversions

    ROLES = PreparedQuery(lambda user_id: UserRole.objects.filter(user_id=user_id).values_list("role"), user_id=int)
    rows = ROLES.rows(user_id=7)

`PreparedUnion` is one query of several such querysets' rows together (the club feed's first page: one query
instead of one per kind of item).

A queryset's shape must not depend on its parameters: each named parameter (an int, a str or a date) is compiled
as a stand-in value that is then found among the compiled parameters and replaced on every call. Everything else
is a constant: the clock is the database's (`Now()`) or a named date parameter (the day of the page, which the
tests set), never a value of Python's (a datetime or date constant is refused at the first call, as it would be
frozen into the SQL). The queryset is a `values_list`.
"""

import datetime
import itertools
from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

_STAND_INS = itertools.count(1)
# Every prepared query and union made: tests/core/test_sql_registry.py runs each on SQLite and PostgreSQL.
MADE: list["PreparedQuery | PreparedUnion"] = []


Value = int | str | datetime.date


def _stand_in(kind: type) -> Value:
    number = next(_STAND_INS)
    if kind is int:
        return -(2**62) + number  # no id, no count, no row's value
    if kind is str:
        return f"\x00prepared-{number}"
    if kind is datetime.date:
        return datetime.date(1, 1, 1) + datetime.timedelta(days=number)  # no day anything happened on
    raise TypeError(f"a prepared query's parameter is an int, a str or a date, not {kind}")


def _as_is(value: Value) -> Value:
    return value


def _a_clock_value(value: object) -> bool:
    """A date or moment of Python's, also as the text a database without a date type gets (SQLite)."""
    if isinstance(value, datetime.date):
        return True
    if not isinstance(value, str) or len(value) < 10:
        return False
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


class PreparedQuery:
    def __init__(self, build: Callable[..., QuerySet], **parameters: type):
        self._build = build
        self._parameters = parameters
        self._compiled: dict[str, tuple] = {}
        MADE.append(self)

    def _compile(self, using: str) -> tuple:
        stand_ins = {name: _stand_in(kind) for name, kind in self._parameters.items()}
        queryset = self._build(**stand_ins)
        query = queryset.query
        if not getattr(queryset, "_fields", None) or query.extra_select:  # the columns values_list asked for
            raise ValueError("a prepared query is a values_list")
        compiler = query.get_compiler(using)
        sql, params = compiler.as_sql()
        by_value: dict[object, tuple[str, Callable]] = {value: (name, _as_is) for name, value in stand_ins.items()}
        # A database that has no date type gets a date as the text its backend adapts it to (SQLite: '0001-01-05').
        adapt_date = connections[using].ops.adapt_datefield_value
        by_value |= {
            adapt_date(value): (name, adapt_date)
            for name, value in stand_ins.items()
            if isinstance(value, datetime.date) and adapt_date(value) != value
        }
        slots = {
            index: by_value[value]
            for index, value in enumerate(params)
            if isinstance(value, (int, str, datetime.date)) and value in by_value
        }
        if any(_a_clock_value(value) for index, value in enumerate(params) if index not in slots):
            raise ValueError("a prepared query has constant parameters only: take the time from the database (Now())")
        missing = set(stand_ins) - {name for name, _adapt in slots.values()}
        if missing:
            raise ValueError(f"a prepared query's parameters {sorted(missing)} are not among its compiled values")
        # The columns come in values_list's order (the compiler selects them so, as values_list reads them).
        converters = compiler.get_converters([column[0] for column in compiler.select[: compiler.col_count]])
        return compiler, sql, list(params), slots, converters

    def rows(self, **values: Value) -> list:
        using = DEFAULT_DB_ALIAS
        compiled = self._compiled.get(using)
        if compiled is None:
            compiled = self._compiled[using] = self._compile(using)
        compiler, sql, params, slots, converters = compiled
        if values.keys() != self._parameters.keys():
            raise TypeError(f"a prepared query takes {sorted(self._parameters)}, not {sorted(values)}")
        if slots:
            params = list(params)
            for index, (name, adapt) in slots.items():
                params[index] = adapt(values[name])
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return rows

    def sql(self) -> tuple[str, list]:
        """The compiled SQL and its parameters, stand-ins included (for a test)."""
        compiled = self._compiled.get(DEFAULT_DB_ALIAS) or self._compile(DEFAULT_DB_ALIAS)
        return compiled[1], compiled[2]


class PreparedUnion:
    """The rows of several querysets in one query, the newest first. Each is a values_list of the same number of
    columns, of the same types in the same places, ordered and limited on its own (so each reads only what its
    index gives); their rows together are ordered by the first `descending` columns and limited again. A row
    comes back as (the index of its queryset, its columns), with that queryset's own conversions. Constant
    querysets only: no parameters, the clock the database's."""

    def __init__(self, build: Callable[[], list[QuerySet]], *, descending: int, limit: int):
        self._build, self._descending, self._limit = build, descending, limit
        self._compiled: dict[str, tuple] = {}
        MADE.append(self)

    def _compile(self, using: str) -> tuple:
        parts, params, branches = [], [], []
        for index, queryset in enumerate(self._build()):
            compiler = queryset.query.get_compiler(using)
            sql, branch_params = compiler.as_sql()
            selected = [column[2] for column in compiler.select[: compiler.col_count]]
            names = list(getattr(queryset, "_fields", None) or ())  # values_list's names, as the SQL must select them
            if names != selected:
                raise ValueError(f"a union takes values_lists of the columns they select ({selected}), not {names}")
            if any(_a_clock_value(value) for value in branch_params):
                raise ValueError("a prepared union has constant parameters only: take the time from the database")
            # Each queryset as a subquery of its own, so its ORDER BY and LIMIT stay its own (SQLite too).
            parts.append(f"SELECT {index} AS union_branch, branch{index}.* FROM ({sql}) branch{index}")  # noqa: S608 - compiled by Django
            params += branch_params
            converters = compiler.get_converters([column[0] for column in compiler.select[: compiler.col_count]])
            branches.append((compiler, converters))
        order = ", ".join(f"{place} DESC" for place in range(2, 2 + self._descending))
        return " UNION ALL ".join(parts) + f" ORDER BY {order} LIMIT {self._limit}", params, branches

    def rows(self) -> list[tuple[int, tuple]]:
        using = DEFAULT_DB_ALIAS
        compiled = self._compiled.get(using)
        if compiled is None:
            compiled = self._compiled[using] = self._compile(using)
        sql, params, branches = compiled
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        found = []
        for row in rows:
            compiler, converters = branches[row[0]]
            columns = tuple(row[1:])
            if converters:
                columns = tuple(next(iter(compiler.apply_converters([columns], converters))))
            found.append((row[0], columns))
        return found

    def sql(self) -> str:
        """The compiled SQL (for a test)."""
        return (self._compiled.get(DEFAULT_DB_ALIAS) or self._compile(DEFAULT_DB_ALIAS))[0]
