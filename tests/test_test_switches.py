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


def test_the_tests_that_share_a_server_are_one_xdist_group():
    from pathlib import Path
    from types import SimpleNamespace

    from tests.conftest import SERIAL, pytest_collection_modifyitems

    root = Path(__file__).resolve().parents[1]
    assert [path for path in SERIAL if not (root / path).exists()] == [], "a SERIAL path that no longer exists"

    marks: dict[str, list] = {}

    def item(nodeid):
        return SimpleNamespace(nodeid=nodeid, add_marker=lambda mark: marks.setdefault(nodeid, []).append(mark))

    shared, alone = "tests/cluster/test_two_instances.py::test_one", "tests/events/test_views.py::test_two"
    pytest_collection_modifyitems([item(shared), item(alone)])
    assert [(mark.name, mark.args) for mark in marks[shared]] == [("xdist_group", ("serial",))]
    assert alone not in marks


def test_xdist_keeps_a_group_in_one_worker(tmp_path):
    """pytest 9.2 silently undid --dist loadgroup (pytest-dev/pytest-xdist#1386): the grouped tests then ran in both
    workers at once. A sample run with two workers proves the pinned pair keeps a group together."""
    import os
    import subprocess
    import sys

    (tmp_path / "test_sample.py").write_text(
        "import os, pytest\n"
        "@pytest.mark.xdist_group('serial')\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_grouped(n):\n"
        "    with open(os.environ['WORKERS_SEEN'], 'a') as seen:\n"
        "        seen.write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_free(n):\n"
        "    pass\n"
    )
    seen = tmp_path / "seen.txt"
    run = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "pytest", "-p", "no:django", "-p", "no:cacheprovider", "-q", "-n", "2"]
        + ["--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path / "test_sample.py")],
        cwd=tmp_path,
        env={**os.environ, "WORKERS_SEEN": str(seen)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    workers = seen.read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers
