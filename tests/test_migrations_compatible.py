"""Issue 32 §5: a migration keeps the previous version's code working for one release (during an upgrade the
old containers still write while the new schema is in place). django-migration-linter checks every migration
of our apps that is not in the baseline (tests/migrations_baseline.txt: the ones written before it): no NOT
NULL column without a database default, no dropped or renamed column or table, no unique constraint added
in place. Add a column nullable or with `db_default` first; drop or tighten in the next release.

The linter reads the SQL that `sqlmigrate` makes, so it runs on PostgreSQL, the production database (CI)."""

from pathlib import Path

import pytest
from django.apps import apps
from django_migration_linter import MigrationLinter

from tests.concurrency import requires_postgresql

pytestmark = pytest.mark.django_db

BASELINE = Path(__file__).with_name("migrations_baseline.txt")


# Migrations the linter doubts that were read and found safe for the previous version's code, each with why.
REVIEWED = {
    ("invitations", "0004_imported_code_shape"): "widens the code from 8 to 32 characters and loosens its check "
    "(codes moved in from the original app); every 8-character code the old code writes still fits",
}


def baseline() -> set[tuple[str, str]]:
    lines = [line.strip() for line in BASELINE.read_text().splitlines()]
    return {tuple(line.split(".", 1)) for line in lines if line and not line.startswith("#")}  # type: ignore[misc]


def our_migrations(linter: MigrationLinter) -> dict[tuple[str, str], object]:
    labels = {config.label for config in apps.get_app_configs() if config.name.startswith("apps.")}
    return {key: migration for key, migration in linter.migration_loader.disk_migrations.items() if key[0] in labels}


def lint(migrations, capsys) -> tuple[int, str]:
    linter = MigrationLinter(no_cache=True)
    for migration in migrations:
        linter.lint_migration(migration)
    return linter.nb_erroneous, capsys.readouterr().out


def test_new_migrations_keep_the_previous_versions_code_working(capsys):
    requires_postgresql()
    linter = MigrationLinter(no_cache=True)
    skipped = baseline() | set(REVIEWED)
    new = [migration for key, migration in sorted(our_migrations(linter).items()) if key not in skipped]
    errors, report = lint(new, capsys)
    assert errors == 0, f"migrations the running code of the previous version would break under:\n{report}"


def test_the_baseline_names_only_existing_migrations():
    known = set(our_migrations(MigrationLinter(no_cache=True)))
    assert baseline() - known == set()
    assert set(REVIEWED) - known == set()


def test_the_linter_catches_the_column_that_broke_an_upgrade(capsys):
    """The incident of the issue: `share_photo` added NOT NULL without a database default; the old code's
    inserts failed between `migrate` and the new containers. Without the baseline the linter refuses it."""
    requires_postgresql()
    migration = our_migrations(MigrationLinter(no_cache=True))[("challenges", "0011_dip_share_photo")]
    errors, report = lint([migration], capsys)
    assert errors == 1 and "NOT NULL constraint on columns" in report
