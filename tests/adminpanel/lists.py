"""Helpers for the tests of the admin lists (users, invitations, photos): keyset pages of the server."""

import base64
import datetime
import json

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User

MAX_ANSWER_BYTES = 60 * 1024  # the limit per answer


def members(count: int, **fields) -> list[User]:
    """`count` members, each a minute older than the one before, with the given fields (callables get n)."""
    now = timezone.now()
    return User.objects.bulk_create(
        [
            User(
                **{
                    "email": f"lid{n:05d}@example.nl",
                    "full_name": f"Lid {n:05d}",
                    "created_at": now - datetime.timedelta(minutes=n),
                    **{key: value(n) if callable(value) else value for key, value in fields.items()},
                }
            )
            for n in range(count)
        ]
    )


def cursor_of(**fields) -> str:
    """A hand-made cursor: the server's own shape (sort, direction, search, value, id) with `fields` changed."""
    shape = {"s": "createdAt", "d": "desc", "q": "", "v": "2026-01-01T10:00:00+00:00", "id": 1, **fields}
    return base64.urlsafe_b64encode(json.dumps(shape).encode()).decode()


def every_page(client, url: str, key: str, **params) -> list[list[dict]]:
    """The rows of every page of a list, following the `next` cursors as the island does."""
    pages, cursor = [], None
    while True:
        response = client.get(url, {**params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.content
        pages.append(response.json()[key])
        cursor = response.json()["next"]
        if cursor is None:
            return pages


def plans_of_every_query(client, url: str, params: dict) -> str:
    """PostgreSQL's plans for the queries of one request, with sequential scans and sorts priced out: on a
    tiny test table that asks whether an index CAN give the rows in the page's order."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, params).status_code == 200
    plans = []
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL enable_incremental_sort = off")  # the order wholly from the index
        for query in queries.captured_queries:
            if query["sql"].startswith("SELECT"):
                cursor.execute("EXPLAIN " + query["sql"])
                plans.append("\n".join(row[0] for row in cursor.fetchall()))
    return "\n\n".join(plans)


def search_plan(table: str, columns: tuple[str, ...]) -> str:
    """PostgreSQL's plan for a search as `icontains` asks it, on these columns, with sequential scans priced
    out: on a tiny test table that asks whether a (trigram) index CAN find the matches."""
    where = " OR ".join(f"UPPER({column}::text) LIKE %s" for column in columns)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN SELECT id FROM {table} WHERE {where}", ["%JAN%"] * len(columns))  # noqa: S608
        return "\n".join(row[0] for row in cursor.fetchall())
