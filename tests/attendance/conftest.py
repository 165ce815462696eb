import datetime

import pytest
import time_machine
from django.utils import timezone


@pytest.fixture
def now():
    """11:00 today (local), the clock stopped there: a swim that started at 10:00 never crosses midnight."""
    moment = timezone.make_aware(datetime.datetime.combine(timezone.localdate(), datetime.time(11, 0)))
    with time_machine.travel(moment, tick=False):
        yield moment
