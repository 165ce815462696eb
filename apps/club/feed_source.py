"""What a source of the club feed is (feed.py declares them): `FeedSource`, the rows of one kind of item that
may show, left out those an admin hid, read a page at a time after a `Cursor` (the moment, the kind and the id
of the last item shown, newest first), each row made into a `FeedItem` as members read it."""

import datetime
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from .models import HiddenItem


@dataclass(frozen=True)
class FeedItem:
    kind: str
    object_id: int
    at: datetime.datetime
    owner_id: int | None  # who hears about a Brrr! on it; None for the club's own items (events)
    actor: str  # the member's name, or "" for the club's own items
    text: str
    photo_url: str = ""
    link: str = ""
    body: str = ""  # a club message's text under its title

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.object_id}"

    @property
    def sort_key(self) -> tuple[datetime.datetime, str, int]:
        return (self.at, self.kind, self.object_id)


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: after the item with this moment, kind and id (newest first)."""

    at: datetime.datetime
    kind: str
    object_id: int

    def encode(self) -> str:
        micros = int(self.at.timestamp()) * 1_000_000 + self.at.microsecond
        return f"{micros}.{self.kind}.{self.object_id}"


@dataclass(frozen=True)
class FeedSource:
    kind: str
    time_field: str
    rows: Callable[[], QuerySet]  # the rows that may show to members
    columns: tuple[str, ...]  # what `item` reads of a row (plain values, joins by lookup: "user__full_name")
    item: Callable[[Any], FeedItem]

    def __post_init__(self) -> None:
        if self.columns[:2] != ("pk", self.time_field):
            raise ValueError(f"feed source {self.kind}: its columns start with the id and the moment")
        names = [column.replace("__", "_") for column in self.columns]
        object.__setattr__(self, "_row", namedtuple(f"{self.kind.title()}Row", names))

    def visible(self) -> QuerySet:
        hidden = HiddenItem.objects.filter(kind=self.kind, object_id=OuterRef("pk"))
        return self.rows().filter(~Exists(hidden))

    def _page(self, cursor: Cursor | None, limit: int) -> QuerySet:
        rows = self.visible()
        if cursor is not None:
            rows = rows.filter(_before(self.time_field, self.kind, cursor))
        return rows.order_by(F(self.time_field).desc(), "-pk").values_list(*self.columns)[:limit]

    def _items(self, rows) -> list[FeedItem]:
        make = self._row._make  # type: ignore[attr-defined]
        return [self.item(make(row)) for row in rows]

    def _sorted_rows(self, cursor: Cursor | None, limit: int) -> list[tuple[tuple, "FeedSource", Any]]:
        """The page's rows with their place in the feed's order (moment, kind, id), not yet items: only the
        rows that make the page become items. The first two columns are the id and the moment."""
        rows = self._page(cursor, limit)
        return [((row[1], self.kind, row[0]), self, row) for row in rows]

    def fields(self) -> list:
        """The model field of each column (the types of the empty places in the first page's query, first_page.py)."""
        query = self.visible().query
        return [query.resolve_ref(column).output_field for column in self.columns]

    def before(self, cursor: Cursor | None, limit: int) -> list[FeedItem]:
        return [source._items([row])[0] for _key, source, row in self._sorted_rows(cursor, limit)]

    def shareable(self, object_id: int) -> bool:
        """The item may show to members (shared, active), hidden by an admin or not."""
        return self.rows().filter(pk=object_id).exists()

    def one(self, object_id: int) -> FeedItem | None:
        rows = self._items(self.visible().filter(pk=object_id).values_list(*self.columns)[:1])
        return rows[0] if rows else None


def _before(time_field: str, kind: str, cursor: Cursor) -> Q:
    """Items of `kind` that come after the cursor in the feed's order (moment, kind, id; newest first)."""
    earlier = Q(**{f"{time_field}__lt": cursor.at})
    same_moment = Q(**{time_field: cursor.at})
    if kind < cursor.kind:
        return earlier | same_moment
    if kind > cursor.kind:
        return earlier
    return earlier | (same_moment & Q(pk__lt=cursor.object_id))
