import datetime

import pytest
from django.utils import timezone

from apps.operations.models import FirstStart


@pytest.fixture(autouse=True)
def _installed_long_ago(request):
    """These tests' installation has run a while: the grace of its first start (apps/operations/first_start.py)
    is long past. tests/operations/test_first_start.py makes a fresh one."""
    if "django_db_setup" not in request.fixturenames and "db" not in request.fixturenames:
        return
    long_ago = timezone.now() - datetime.timedelta(days=30)
    FirstStart.objects.update_or_create(pk=1, defaults={"started_at": long_ago})
