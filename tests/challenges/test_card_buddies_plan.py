"""The stamp card's "Met Anna" lines are read on every render of the card: PostgreSQL must find them through
indexes, never by reading every dip or every buddy of the club (issue 37: no work that grows with history)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.challenges.card_payloads import dip_buddy_names
from apps.challenges.services.dips import dip_register
from apps.together.services import buddy_accept
from tests.challenges.test_same_swim import _at, _member, _tag
from tests.concurrency import requires_postgresql

pytestmark = pytest.mark.django_db

TABLES = {"challenges_dip", "challenges_dipbuddy"}


def _scans(plan: dict) -> list[dict]:
    below = [scan for child in plan.get("Plans", []) for scan in _scans(child)]
    return ([plan] if plan.get("Relation Name") in TABLES else []) + below


def test_the_cards_buddies_are_found_through_indexes():
    requires_postgresql()
    anna, _ = _member("Anna Tagger")
    bram, bram_card = _member("Bram Buddy")
    dip_register(user=bram, now=_at(8, 45, days_ago=1))
    buddy_accept(user=bram, tag_id=_tag(tagger=anna, buddy=bram, moment=_at(9, days_ago=1)).pk, now=_at(11, days_ago=1))
    _tag(tagger=bram, buddy=anna, moment=_at(9, days_ago=3))
    with CaptureQueriesContext(connection) as queries:
        names = dip_buddy_names(user_id=bram.pk, card=bram_card)
    assert sorted(names.values()) == [["Anna Tagger"], ["Anna Tagger"]]
    (query,) = queries.captured_queries
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # on tiny tables: CAN an index find the rows?
        cursor.execute("EXPLAIN (FORMAT JSON) " + query["sql"])
        (plan,) = cursor.fetchone()[0]  # psycopg reads the JSON
    scans = _scans(plan["Plan"])
    assert {scan["Relation Name"] for scan in scans} == TABLES
    for scan in scans:
        found_by = scan.get("Index Cond") or scan.get("Recheck Cond")
        assert found_by, f"{scan['Node Type']} on {scan['Relation Name']} reads the whole table"
