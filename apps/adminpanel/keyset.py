"""Keyset pages for the admin lists: at most a page of rows in a sort order, from the row after the cursor's.

A page reads its index from the cursor's row on, so the first page and the two-hundredth cost the same at
any club size (an OFFSET would read and drop every row before it). The cursor carries the last row's
(sort value, id) and the sort, direction and search it belongs to: a cursor of another order is refused,
not misread. Every list sorts on a column with an index on (column, id), the id breaking ties.
"""

import base64
import datetime
import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce

from django.db.models import Expression, F, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.core.errors import DomainError

from .refusals import AdminRefusal

SEARCH_MAX = 100  # characters: a name, an address or a code, not a text
DIRECTIONS = ("asc", "desc")
MESSAGE_BAD_SEARCH = f"Zoekterm is te lang (maximaal {SEARCH_MAX} tekens) of bevat ongeldige tekens."


class ListQueryError(DomainError, ValueError):
    """A parameter of an admin list the server cannot answer; the message is Dutch, for the admin."""


@dataclass(frozen=True)
class SortColumn:
    """What a sort key orders by, and the type of its values (a cursor's value must be one)."""

    expression: F | Expression
    kind: type  # datetime.datetime, int or str

    @classmethod
    def moment(cls, field: str) -> "SortColumn":
        return cls(F(field), datetime.datetime)


@dataclass(frozen=True)
class ListQuery:
    """What the admin asks of a list: ?q= (the search), ?sort=, ?dir=asc|desc and ?cursor= (the `next` of
    the page before). A missing sort or direction is the list's default; an empty one is refused."""

    search: str = ""
    sort: str | None = None
    direction: str | None = None
    cursor: str | None = None

    @classmethod
    def from_query_string(cls, params) -> "ListQuery":
        return cls(
            search=params.get("q", ""),
            sort=params.get("sort"),
            direction=params.get("dir"),
            cursor=params.get("cursor") or None,
        )


FIRST_PAGE = ListQuery()  # in the list's default order, without a search


@dataclass(frozen=True)
class Page:
    rows: list
    next: str | None  # the cursor of the following page; None on the last


@dataclass(frozen=True)
class KeysetList:
    """One admin list: its sort keys, the fields its search looks in, its page size and its Dutch refusals."""

    sorts: Mapping[str, SortColumn]
    default_sort: tuple[str, str]  # (sort key, direction)
    page_size: int
    message_bad_sort: str
    message_bad_cursor: str
    search_fields: tuple[str, ...] = ()  # searched with icontains: a row matches when any of them holds the term

    def page(self, rows: QuerySet, query: ListQuery = FIRST_PAGE) -> Page:
        """At most a page of `rows` matching the search, in the sort order, after the cursor's row. One
        query: the redundant `>=` of the seek lets PostgreSQL start its index scan at the cursor's row."""
        sort = self.default_sort[0] if query.sort is None else query.sort
        direction = self.default_sort[1] if query.direction is None else query.direction
        if sort not in self.sorts or direction not in DIRECTIONS:
            raise ListQueryError(self.message_bad_sort, code=AdminRefusal.BAD_SORT)
        search = query.search.strip()
        if len(search) > SEARCH_MAX or "\x00" in search:  # PostgreSQL text cannot hold a NUL
            raise ListQueryError(MESSAGE_BAD_SEARCH, code=AdminRefusal.BAD_SEARCH)
        rows = rows.annotate(sort_value=self.sorts[sort].expression)
        if search and self.search_fields:
            rows = rows.filter(
                reduce(operator.or_, (Q(**{f"{field}__icontains": search}) for field in self.search_fields))
            )
        if query.cursor:
            value, pk = self._position(query.cursor, sort=sort, direction=direction, search=search)
            beyond, reach = ("gt", "gte") if direction == "asc" else ("lt", "lte")
            rows = rows.filter(
                Q(**{f"sort_value__{beyond}": value}) | Q(sort_value=value, **{f"pk__{beyond}": pk}),
                **{f"sort_value__{reach}": value},
            )
        sign = "" if direction == "asc" else "-"
        size = self.page_size
        found = list(rows.order_by(f"{sign}sort_value", f"{sign}pk")[: size + 1])  # one more: is there a next page?
        if len(found) <= size:
            return Page(rows=found, next=None)
        last = found[size - 1]
        # Rows are models, or dicts when the list asks for values() (no model to build per row).
        value, pk = (last["sort_value"], last["pk"]) if isinstance(last, dict) else (last.sort_value, last.pk)
        return Page(
            rows=found[:size],
            next=_cursor(sort=sort, direction=direction, search=search, value=value, pk=pk),
        )

    def _position(self, cursor: str, *, sort: str, direction: str, search: str):
        """The last row's (sort value, id) of the page before; a cursor of another sort or search is refused."""
        try:
            data = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
            if not isinstance(data, dict) or (data.get("s"), data.get("d"), data.get("q")) != (sort, direction, search):
                raise ValueError(cursor)
            value, pk = data["v"], data["id"]
            if type(pk) is not int:
                raise ValueError(cursor)
            return _value_of(self.sorts[sort].kind, value), pk
        except (ValueError, KeyError, TypeError, UnicodeError) as exc:
            raise ListQueryError(self.message_bad_cursor, code=AdminRefusal.BAD_CURSOR) from exc


def _cursor(*, sort: str, direction: str, search: str, value, pk: int) -> str:
    if isinstance(value, datetime.datetime):
        value = value.isoformat()
    raw = json.dumps({"s": sort, "d": direction, "q": search, "v": value, "id": pk}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _value_of(kind: type, value):
    """A cursor's sort value as the column holds it, or ValueError: only what the server hands out passes."""
    if kind is datetime.datetime:
        moment = parse_datetime(value) if isinstance(value, str) else None
        if moment is None or timezone.is_naive(moment):  # we only ever hand out aware moments
            raise ValueError(value)
        return moment
    if kind is int:
        if type(value) is not int:
            raise ValueError(value)
        return value
    if not isinstance(value, str) or "\x00" in value:
        raise ValueError(value)
    return value
