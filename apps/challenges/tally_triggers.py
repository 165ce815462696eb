"""The triggers that keep the club's tallies (models/tallies.py) true, on PostgreSQL and on SQLite, and the
recount that fills them from the rows (when the triggers are installed, and in the tests as the truth).

Why triggers and not the services: every way a dip or a badge comes or goes counts, also the ones no
service sees (a member's deletion cascades through their dips, the load data bulk-inserts, a raw DELETE of
the load data, a test's factory). They run in the writing transaction, so a tally commits or rolls back with
its rows. Race-safe on PostgreSQL: each change is one `INSERT … ON CONFLICT DO UPDATE` or `UPDATE` with
`n = n ± 1` on the tally's row, which takes that row's lock, so two dips at once both count. The member's
week row is changed before the club's week row, always in that order.

A week is the Monday of the dip's date (`date_trunc('week', …)` in PostgreSQL; in SQLite the Sunday on or
after the date, minus six days), as apps/adminpanel counts weeks.
"""

from apps.core.sql_registry import register

PG_DIP_FUNCTION = """
CREATE OR REPLACE FUNCTION challenges_dip_tally() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  dip_week date;
  left_over integer;
  now_dips integer;
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    dip_week := date_trunc('week', OLD.dip_date)::date;
    UPDATE challenges_memberweektally SET dips = dips - 1
      WHERE user_id = OLD.user_id AND week = dip_week RETURNING dips INTO left_over;
    IF left_over = 0 THEN
      DELETE FROM challenges_memberweektally WHERE user_id = OLD.user_id AND week = dip_week;
    END IF;
    UPDATE challenges_dipweektally
      SET dips = dips - 1, members = members - (CASE WHEN left_over = 0 THEN 1 ELSE 0 END)
      WHERE week = dip_week;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    dip_week := date_trunc('week', NEW.dip_date)::date;
    INSERT INTO challenges_memberweektally (user_id, week, dips) VALUES (NEW.user_id, dip_week, 1)
      ON CONFLICT (user_id, week) DO UPDATE SET dips = challenges_memberweektally.dips + 1
      RETURNING dips INTO now_dips;
    INSERT INTO challenges_dipweektally (week, dips, members)
      VALUES (dip_week, 1, CASE WHEN now_dips = 1 THEN 1 ELSE 0 END)
      ON CONFLICT (week) DO UPDATE SET dips = challenges_dipweektally.dips + 1,
        members = challenges_dipweektally.members + EXCLUDED.members;
  END IF;
  RETURN NULL;
END
$$;
"""

PG_BADGE_FUNCTION = """
CREATE OR REPLACE FUNCTION challenges_badge_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE challenges_badgetally SET awards = awards - 1
      WHERE badge_id = OLD.badge_id AND physical_status = OLD.physical_status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO challenges_badgetally (badge_id, physical_status, awards) VALUES (NEW.badge_id, NEW.physical_status, 1)
      ON CONFLICT (badge_id, physical_status) DO UPDATE SET awards = challenges_badgetally.awards + 1;
  END IF;
  RETURN NULL;
END
$$;
"""

PG_TRIGGERS = [
    PG_DIP_FUNCTION,
    PG_BADGE_FUNCTION,
    "CREATE TRIGGER challenges_dip_tally_change AFTER INSERT OR DELETE ON challenges_dip"
    " FOR EACH ROW EXECUTE FUNCTION challenges_dip_tally()",
    "CREATE TRIGGER challenges_dip_tally_move AFTER UPDATE OF dip_date, user_id ON challenges_dip FOR EACH ROW"
    " WHEN (OLD.dip_date IS DISTINCT FROM NEW.dip_date OR OLD.user_id IS DISTINCT FROM NEW.user_id)"
    " EXECUTE FUNCTION challenges_dip_tally()",
    "CREATE TRIGGER challenges_badge_tally_change AFTER INSERT OR DELETE ON challenges_userbadge"
    " FOR EACH ROW EXECUTE FUNCTION challenges_badge_tally()",
    "CREATE TRIGGER challenges_badge_tally_move AFTER UPDATE OF badge_id, physical_status ON challenges_userbadge"
    " FOR EACH ROW WHEN (OLD.badge_id IS DISTINCT FROM NEW.badge_id"
    " OR OLD.physical_status IS DISTINCT FROM NEW.physical_status) EXECUTE FUNCTION challenges_badge_tally()",
]
PG_DROP = [
    "DROP TRIGGER IF EXISTS challenges_dip_tally_change ON challenges_dip",
    "DROP TRIGGER IF EXISTS challenges_dip_tally_move ON challenges_dip",
    "DROP TRIGGER IF EXISTS challenges_badge_tally_change ON challenges_userbadge",
    "DROP TRIGGER IF EXISTS challenges_badge_tally_move ON challenges_userbadge",
    "DROP FUNCTION IF EXISTS challenges_dip_tally()",
    "DROP FUNCTION IF EXISTS challenges_badge_tally()",
]


def _sqlite_week(row: str) -> str:
    return f"date({row}.dip_date, 'weekday 0', '-6 days')"


def _sqlite_dip_added(row: str) -> str:
    week = _sqlite_week(row)
    return f"""
  INSERT OR IGNORE INTO challenges_memberweektally (user_id, week, dips) VALUES ({row}.user_id, {week}, 0);
  UPDATE challenges_memberweektally SET dips = dips + 1 WHERE user_id = {row}.user_id AND week = {week};
  INSERT OR IGNORE INTO challenges_dipweektally (week, dips, members) VALUES ({week}, 0, 0);
  UPDATE challenges_dipweektally SET dips = dips + 1, members = members + (
    SELECT COUNT(*) FROM challenges_memberweektally WHERE user_id = {row}.user_id AND week = {week} AND dips = 1
  ) WHERE week = {week};"""  # noqa: S608 - NEW or OLD, never input


def _sqlite_dip_removed(row: str) -> str:
    week = _sqlite_week(row)
    return f"""
  UPDATE challenges_memberweektally SET dips = dips - 1 WHERE user_id = {row}.user_id AND week = {week};
  UPDATE challenges_dipweektally SET dips = dips - 1, members = members - (
    SELECT COUNT(*) FROM challenges_memberweektally WHERE user_id = {row}.user_id AND week = {week} AND dips = 0
  ) WHERE week = {week};
  DELETE FROM challenges_memberweektally WHERE user_id = {row}.user_id AND week = {week} AND dips = 0;"""  # noqa: S608 - NEW or OLD, never input


def _sqlite_badge(row: str, step: str) -> str:
    return f"""
  INSERT OR IGNORE INTO challenges_badgetally (badge_id, physical_status, awards)
    VALUES ({row}.badge_id, {row}.physical_status, 0);
  UPDATE challenges_badgetally SET awards = awards {step} 1
    WHERE badge_id = {row}.badge_id AND physical_status = {row}.physical_status;"""  # noqa: S608 - NEW or OLD, never input


SQLITE_TRIGGERS = [
    f"CREATE TRIGGER challenges_dip_tally_insert AFTER INSERT ON challenges_dip BEGIN {_sqlite_dip_added('NEW')} END",
    f"CREATE TRIGGER challenges_dip_tally_delete AFTER DELETE ON challenges_dip BEGIN {_sqlite_dip_removed('OLD')} END",
    "CREATE TRIGGER challenges_dip_tally_move AFTER UPDATE OF dip_date, user_id ON challenges_dip"
    " WHEN OLD.dip_date IS NOT NEW.dip_date OR OLD.user_id IS NOT NEW.user_id"
    f" BEGIN {_sqlite_dip_removed('OLD')} {_sqlite_dip_added('NEW')} END",
    "CREATE TRIGGER challenges_badge_tally_insert AFTER INSERT ON challenges_userbadge"
    f" BEGIN {_sqlite_badge('NEW', '+')} END",
    "CREATE TRIGGER challenges_badge_tally_delete AFTER DELETE ON challenges_userbadge"
    f" BEGIN {_sqlite_badge('OLD', '-')} END",
    "CREATE TRIGGER challenges_badge_tally_move AFTER UPDATE OF badge_id, physical_status ON challenges_userbadge"
    " WHEN OLD.badge_id IS NOT NEW.badge_id OR OLD.physical_status IS NOT NEW.physical_status"
    f" BEGIN {_sqlite_badge('OLD', '-')} {_sqlite_badge('NEW', '+')} END",
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "challenges_dip_tally_insert",
        "challenges_dip_tally_delete",
        "challenges_dip_tally_move",
        "challenges_badge_tally_insert",
        "challenges_badge_tally_delete",
        "challenges_badge_tally_move",
    )
]

# The tallies as counted from the rows: what the triggers keep, and how they start.
RECOUNT = {
    "postgresql": [
        "INSERT INTO challenges_memberweektally (user_id, week, dips)"
        " SELECT user_id, date_trunc('week', dip_date)::date, COUNT(*) FROM challenges_dip GROUP BY 1, 2",
    ],
    "sqlite": [
        "INSERT INTO challenges_memberweektally (user_id, week, dips)"
        " SELECT user_id, date(dip_date, 'weekday 0', '-6 days'), COUNT(*) FROM challenges_dip GROUP BY 1, 2",
    ],
}
RECOUNT_COMMON = [
    "INSERT INTO challenges_dipweektally (week, dips, members)"
    " SELECT week, SUM(dips), COUNT(*) FROM challenges_memberweektally GROUP BY week",
    "INSERT INTO challenges_badgetally (badge_id, physical_status, awards)"
    " SELECT badge_id, physical_status, COUNT(*) FROM challenges_userbadge GROUP BY 1, 2",
]
TALLY_TABLES = ("challenges_memberweektally", "challenges_dipweektally", "challenges_badgetally")

_DROP = register("tallies.triggers_drop", postgresql=PG_DROP, sqlite=SQLITE_DROP)
_INSTALL = register(
    "tallies.triggers", postgresql=PG_TRIGGERS, sqlite=SQLITE_TRIGGERS, needs=("tallies.triggers_drop",)
)
_LOCK = register(
    "tallies.lock",
    postgresql="LOCK TABLE challenges_dip, challenges_userbadge, " + ", ".join(TALLY_TABLES) + " IN EXCLUSIVE MODE",
    without="SQLite lets one writer in at a time: the recount's transaction holds the whole database",
)
_EMPTY = register("tallies.empty", both=[f"DELETE FROM {table}" for table in TALLY_TABLES])  # noqa: S608 - own names
_RECOUNT = register(
    "tallies.recount",
    postgresql=[*RECOUNT["postgresql"], *RECOUNT_COMMON],
    sqlite=[*RECOUNT["sqlite"], *RECOUNT_COMMON],
    needs=("tallies.empty",),
)


def tallies_recount(connection) -> None:
    """Fill the tallies from the rows, whatever they held. Takes the tables' locks on PostgreSQL, so no dip
    is written in between."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _LOCK.run(cursor, connection.vendor)
        _EMPTY.run(cursor, connection.vendor)
        _RECOUNT.run(cursor, connection.vendor)


def triggers_install(apps, schema_editor) -> None:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        _INSTALL.run(cursor, connection.vendor)
    tallies_recount(connection)


def triggers_remove(apps, schema_editor) -> None:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        _DROP.run(cursor, connection.vendor)
