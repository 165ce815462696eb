import os
import time
import warnings

import pytest
from hypothesis import settings

from tests.factories import AdminFactory, UserFactory
from tests.mailbox import smtp_server  # noqa: F401 - the loopback SMTP server fixture, for every test module
from tests.pushbox import push_receiver  # noqa: F401 - the loopback Web Push receiver fixture

# Property-based tests run derandomised in CI (the same examples every run, so a red build is reproducible
# and a flaky property shows up locally first); locally they explore new examples each run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true"):
    settings.load_profile("ci")


# Every rolled-back test leaves its rows in PostgreSQL as dead tuples, and this machine's PostgreSQL runs without
# autovacuum: late in a whole run, scans of the user, dip and participant tables read tens of thousands of them
# (an /admin page 30× slower than alone). So the test database is vacuumed between tests, once a minute.
VACUUM_EVERY_SECONDS = 60
_last_vacuum = time.monotonic()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    global _last_vacuum
    if time.monotonic() - _last_vacuum >= VACUUM_EVERY_SECONDS:
        _vacuum_test_database(item.config)
        _last_vacuum = time.monotonic()


def _vacuum_test_database(config) -> None:
    from django.db import DatabaseError, connection
    from pytest_django.plugin import blocking_manager_key

    test_database = str(connection.settings_dict["NAME"]).startswith("test_")
    if connection.vendor != "postgresql" or not test_database or connection.in_atomic_block:
        return  # not made yet, not PostgreSQL, or a module's data is open in a transaction
    with config.stash[blocking_manager_key].unblock():
        if not connection.get_autocommit():
            return  # VACUUM runs outside a transaction only
        try:
            with connection.cursor() as cursor:
                cursor.execute("VACUUM (ANALYZE)")
        except DatabaseError as error:
            warnings.warn(f"the test database was not vacuumed: {error}", stacklevel=1)


# With pytest-xdist (`make test` runs `-n 3 --dist loadgroup`) every worker has its own test database (pytest-django
# adds the worker's name) and Redis database (tests/redis_states.py). What is shared beyond those runs in one worker,
# one test after another, beside the rest: the servers of tests/cluster, tests/deploy and tests/s3 (one S3 bucket),
# collectstatic into the one STATIC_ROOT (those and the backup drill), the newcomer journey's demo server, and
# tests/test_payload_contract.py, whose last test checks what the module's other tests met in this process.
SERIAL = (
    "tests/cluster/",
    "tests/deploy/",
    "tests/s3/",
    "tests/newcomer/",
    "tests/operations/test_backup_drill.py",
    "tests/test_payload_contract.py",
)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the group marks
def pytest_collection_modifyitems(items):
    for item in items:
        if item.nodeid.startswith(SERIAL):
            item.add_marker(pytest.mark.xdist_group("serial"))


@pytest.fixture
def member(db):
    return UserFactory(full_name="Marit Zwemmer", email="marit@example.nl")


@pytest.fixture
def other_member(db):
    return UserFactory(full_name="Otto Ander", email="otto@example.nl")


@pytest.fixture
def admin_user(db):
    return AdminFactory(full_name="Anna Admin", email="anna@example.nl")


@pytest.fixture
def bare_admin(db):
    """The admin role without a second factor: a member until they add one (AdminFactory's admins have one)."""
    return AdminFactory(full_name="Bas Rolhouder", email="bas@example.nl", second_factor=False)


@pytest.fixture
def member_client(client, member):
    client.force_login(member)
    return client


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def bare_admin_client(client, bare_admin):
    client.force_login(bare_admin)
    return client


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Transactional tests (threads, live_server) end by flushing the database, and with it the catalogue that the
    data migration made. Put it back after them, so every test, in any order, sees the catalogue a real site has."""
    result = yield
    if nextitem is None:
        return result  # the last test: the test database itself is gone by now
    marker = item.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or {
        "transactional_db",
        "live_server",
    } & set(getattr(item, "fixturenames", ()))
    if transactional:
        from pytest_django.plugin import blocking_manager_key

        from apps.challenges.catalogue import apply_catalogue
        from apps.challenges.models import Badge, Challenge

        with item.config.stash[blocking_manager_key].unblock():
            apply_catalogue(Challenge, Badge)
    return result


@pytest.fixture(autouse=True)
def _empty_cache():
    """Every test starts with an empty cache: a cached page of an earlier test (whose ids a rolled-back
    database may hand out again) must not answer in this one."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def first_visit_styles(settings):
    """A browser without the site's stylesheets gets them inline (config/first_visit_styles.py); off by default
    in the tests (config/settings/test.py) so a test compares a page with itself."""
    settings.INLINE_FIRST_VISIT_STYLES = True


# --- The clock switch (issue 51) ---------------------------------------------------------------------------
# KOUD_TEST_NOW=2026-12-31T23:30:00+00:00 runs the whole session from that moment (time still moves), to find
# tests that read today's date or month: run the suite at a month's or year's boundary and on an ordinary day.
# A timestamp, not the datetime, so time-machine leaves the process's time zone (Django's TZ) alone.
# Clocks outside Python do not travel: the database's Now() (SQLite's too), file times, OpenSSL's certificate
# checks. A test that fails on an ordinary day as well mixes such a clock with Python's; not a date bug.
_session_clock = []


def pytest_configure(config):
    if moment := os.environ.get("KOUD_TEST_NOW"):
        import datetime

        import time_machine

        _session_clock.append(time_machine.travel(datetime.datetime.fromisoformat(moment).timestamp()))
        _session_clock[0].start()


def pytest_unconfigure(config):
    while _session_clock:
        _session_clock.pop().stop()
