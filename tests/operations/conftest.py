import datetime

import pytest
from django.utils import timezone

from apps.operations.models import FirstStart


@pytest.fixture(autouse=True)
def _installed_long_ago(request):
    """These tests' installation has run a while: the grace of its first start (apps/operations/first_start.py)
    is long past. tests/operations/test_first_start.py makes a fresh one."""
    uses_the_database = request.node.get_closest_marker("django_db") is not None or {"db", "transactional_db"} & set(
        request.fixturenames
    )
    if not uses_the_database:  # no database, or one the test opens itself (django_db_blocker)
        return
    request.getfixturevalue("_django_db_helper")  # the database is open for this test before the row is written
    long_ago = timezone.now() - datetime.timedelta(days=30)
    FirstStart.objects.update_or_create(pk=1, defaults={"started_at": long_ago})
