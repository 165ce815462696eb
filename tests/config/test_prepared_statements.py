"""On PostgreSQL a query a kept connection asks again is prepared, so it is planned once (config/settings/base.py);
DATABASE_PREPARED_STATEMENTS=false switches that off for a connection pooler in transaction mode."""

import os
import secrets

import pytest
from django.db import connection

from tests.concurrency import requires_postgresql
from tests.config.test_settings import run_manage
from tests.factories import UserFactory

SHOW_OPTIONS = "from django.db import connection; print(sorted(connection.settings_dict['OPTIONS'].items()))"


def _options(**env: str) -> str:
    result = run_manage("shell", "-c", SHOW_OPTIONS, env_extra={"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1]


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db
def test_a_page_asked_again_on_the_same_connection_runs_prepared_queries(client):
    requires_postgresql()
    client.force_login(UserFactory())
    client.get("/dashboard")
    client.get("/dashboard")
    prepared = _prepared_statements()
    assert any("FROM django_session" in statement for statement in prepared), prepared
    assert any('FROM "accounts_user"' in statement for statement in prepared), prepared


def test_postgresql_prepares_by_default_and_not_behind_a_pooler():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("the options are PostgreSQL's: set DATABASE_URL (CI does)")
    assert _options(DATABASE_URL=url) == "[('prepare_threshold', 1), ('server_side_binding', True)]"
    assert _options(DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="false") == "[]"


def test_sqlite_gets_no_postgresql_options(tmp_path):
    options = _options(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert "prepare_threshold" not in options and "server_side_binding" not in options, options
