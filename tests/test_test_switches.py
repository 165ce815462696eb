"""The switches that keep CI honest: a PostgreSQL-only test fails, not skips, when CI asks for PostgreSQL."""

import pytest
from django.db import connection

from tests.concurrency import requires_postgresql


@pytest.fixture
def on_sqlite(monkeypatch):
    monkeypatch.setattr(connection, "vendor", "sqlite")


def test_without_the_switch_a_postgresql_only_test_skips_on_sqlite(on_sqlite, monkeypatch):
    monkeypatch.delenv("POSTGRES_REQUIRED", raising=False)
    with pytest.raises(pytest.skip.Exception):
        requires_postgresql()


def test_with_postgres_required_a_postgresql_only_test_fails_on_sqlite(on_sqlite, monkeypatch):
    monkeypatch.setenv("POSTGRES_REQUIRED", "1")
    with pytest.raises(pytest.fail.Exception, match="POSTGRES_REQUIRED=1"):
        requires_postgresql()


def test_ci_sets_the_switch():
    from pathlib import Path

    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "export POSTGRES_REQUIRED=1" in ci
