"""The club feed's first page, the one every visit of /club shows, in one query over all its sources
(apps/club/feed.py) instead of one per source: each source's newest rows, read by its own index, come in rows of
one shape. First the moment, the kind's rank and the id (the feed's order), then a place for every column after
the id and moment of every source: its own filled, the other sources' empty (typed, as a union needs them).
The rows come back as a source's own page query gives them; later pages are read source by source."""

from typing import Any

from django.db.models import F, IntegerField, QuerySet, Value
from django.db.models.functions import Cast

from apps.core.prepared import PreparedUnion

ORDER = ("feed_at", "feed_rank", "feed_id")


class FirstPage:
    def __init__(self, sources: dict[str, Any], *, limit: int):
        self._sources = sources
        self._limit = limit
        self._ranks = {kind: rank for rank, kind in enumerate(sorted(sources))}  # the kinds' names' order
        self._places = {
            kind: [f"{kind}_{number}" for number in range(2, len(source.columns))] for kind, source in sources.items()
        }
        self._own: dict[str, slice] = {}
        start = len(ORDER)
        for kind, places in self._places.items():
            self._own[kind] = slice(start, start + len(places))
            start += len(places)
        self._query = PreparedUnion(self._branches, descending=len(ORDER), limit=limit)

    def _branches(self) -> list[QuerySet]:
        fields = {kind: source.fields()[2:] for kind, source in self._sources.items()}
        branches = []
        for source in self._sources.values():
            places = {
                place: F(column) if kind == source.kind else Cast(Value(None), output_field=field)
                for kind, other in self._sources.items()
                for place, column, field in zip(self._places[kind], other.columns[2:], fields[kind], strict=True)
            }
            rank = Value(self._ranks[source.kind], output_field=IntegerField())
            branches.append(
                source.visible()
                .order_by(F(source.time_field).desc(), "-pk")
                .annotate(feed_at=F(source.time_field), feed_rank=rank, feed_id=F("pk"), **places)
                .values_list(*ORDER, *places)[: self._limit]
            )
        return branches

    def rows(self) -> list[tuple[tuple, Any, tuple]]:
        """The page's rows as FeedSource._sorted_rows gives them: (moment, kind, id), the source, its row."""
        sources = list(self._sources.values())
        found = []
        for index, row in self._query.rows():
            source = sources[index]
            at, _rank, object_id = row[: len(ORDER)]
            found.append(((at, source.kind, object_id), source, (object_id, at, *row[self._own[source.kind]])))
        return found

    def sql(self) -> str:
        return self._query.sql()
