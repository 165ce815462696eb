"""The day of an imported dip that the old app left undated: the club's (Amsterdam) day of the import."""

import datetime

from apps.moving_in.cards import _dip
from apps.moving_in.context import ImportContext
from apps.moving_in.report import Report


def test_an_undated_dip_gets_the_amsterdam_date_of_the_import():
    # 23:30 UTC on 31 December is already 1 January in Amsterdam.
    now = datetime.datetime(2026, 12, 31, 23, 30, tzinfo=datetime.UTC)
    ctx = ImportContext(report=Report(), on_conflict="refuse", now=now)
    dip = _dip(ctx, {"id": "oud-1"}, user_id=1, number=1)
    assert (dip.dip_date, dip.created_at) == (datetime.date(2027, 1, 1), now)
