"""Reading the original app's database: one read-only REPEATABLE READ snapshot, columns chosen by name.

Supabase adds columns often, so only the columns named here are read (those missing read as None) and the
rest is ignored. The app's own database is refused: an import into itself would double every member.
"""

from dataclasses import dataclass, field
from urllib.parse import urlsplit

import psycopg
from django.conf import settings
from psycopg import sql
from psycopg.rows import dict_row

from .errors import ImportRefused
from .refusals import MovingInRefusal

MESSAGE_CONNECT = "De database van de oude app is niet bereikbaar: {reason}"
MESSAGE_OWN_DATABASE = "Dit is de database van deze app zelf. Geef de database van de oude app op."
MESSAGE_NOT_SUPABASE = "In deze database ontbreekt {table}: is dit wel een export van de oude app?"

# (schema, table): the columns read. Tables marked required must exist.
TABLES: dict[tuple[str, str], tuple[str, ...]] = {
    ("auth", "users"): (
        "id",
        "email",
        "encrypted_password",
        "email_confirmed_at",
        "raw_user_meta_data",
        "created_at",
        "banned_until",
        "deleted_at",
        "is_anonymous",
    ),
    ("auth", "identities"): ("user_id", "provider"),
    ("public", "profiles"): ("id", "email", "full_name", "created_at", "newsletter_consent"),
    ("public", "user_roles"): ("user_id", "role"),
    ("public", "challenges"): ("id", "name", "description", "category", "target_dips", "badge_image_url", "is_active"),
    ("public", "badges"): ("id", "challenge_id", "name", "description", "image_url", "milestone_dips"),
    ("public", "user_challenges"): (
        "id",
        "user_id",
        "challenge_id",
        "is_active",
        "completed_at",
        "challenge_type",
        "created_at",
    ),
    ("public", "dips"): ("id", "user_id", "user_challenge_id", "dip_date", "photo_url", "created_at"),
    ("public", "user_badges"): ("id", "user_id", "badge_id", "user_challenge_id", "earned_at"),
    ("public", "invitations"): (
        "id",
        "code",
        "email",
        "invited_by",
        "expires_at",
        "used_at",
        "used_by",
        "created_at",
    ),
    ("public", "events"): (
        "id",
        "title",
        "event_date",
        "location",
        "description",
        "max_participants",
        "is_active",
        "created_at",
    ),
    ("public", "event_participants"): ("id", "event_id", "user_id", "created_at"),
}
REQUIRED = {("auth", "users"), ("public", "profiles"), ("public", "dips"), ("public", "user_challenges")}
# The order rows are read in: a stable one, so two runs (and the report) see the same order.
ORDER = {"dips": ("dip_date", "created_at", "id"), "users": ("created_at", "id")}


@dataclass
class SourceData:
    """Every table as a list of dicts (column → value); a table the source lacks is empty."""

    tables: dict[str, list[dict]] = field(default_factory=dict)

    def rows(self, name: str) -> list[dict]:
        return self.tables.get(name, [])


def _same_database(database_url: str) -> bool:
    own = settings.DATABASES["default"]
    if own["ENGINE"] != "django.db.backends.postgresql":
        return False
    url = urlsplit(database_url)
    return (url.path.lstrip("/"), url.hostname or "localhost", url.port or 5432) == (
        own["NAME"],
        own.get("HOST") or "localhost",
        int(own.get("PORT") or 5432),
    )


def source_read(database_url: str) -> SourceData:
    """Read every table the import needs in one read-only snapshot. Raises ImportRefused."""
    if _same_database(database_url):
        raise ImportRefused(MESSAGE_OWN_DATABASE, code=MovingInRefusal.OWN_DATABASE)
    try:
        conn = psycopg.connect(database_url, row_factory=dict_row, connect_timeout=10)
    except psycopg.Error as exc:
        raise ImportRefused(
            MESSAGE_CONNECT.format(reason=str(exc).strip().splitlines()[0]), code=MovingInRefusal.SOURCE_UNREACHABLE
        ) from exc
    with conn:
        conn.read_only = True
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        with conn.transaction():
            _refuse_own(conn)
            columns = _columns(conn)
            data = SourceData()
            for (schema, table), wanted in TABLES.items():
                present = columns.get((schema, table))
                if present is None:
                    if (schema, table) in REQUIRED:
                        raise ImportRefused(
                            MESSAGE_NOT_SUPABASE.format(table=f"{schema}.{table}"),
                            code=MovingInRefusal.NOT_THE_ORIGINAL,
                        )
                    continue
                data.tables[table if schema == "public" else f"{schema}.{table}"] = _read(
                    conn, schema, table, wanted, present
                )
    return data


def _refuse_own(conn) -> None:
    # The same server under another name (a socket, an alias) still has this app's migrations table, and the
    # app's own database has a user table of this app: both mean "this is us".
    found = conn.execute(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public' "
        "AND table_name IN ('django_migrations', %s)",
        [_own_user_table()],
    ).fetchone()
    if found["n"]:
        raise ImportRefused(MESSAGE_OWN_DATABASE, code=MovingInRefusal.OWN_DATABASE)


def _own_user_table() -> str:
    from apps.accounts.models import User

    return User._meta.db_table


def _columns(conn) -> dict[tuple[str, str], set[str]]:
    found: dict[tuple[str, str], set[str]] = {}
    for row in conn.execute(
        "SELECT table_schema, table_name, column_name FROM information_schema.columns "
        "WHERE table_schema IN ('auth', 'public')"
    ):
        found.setdefault((row["table_schema"], row["table_name"]), set()).add(row["column_name"])
    return found


def _read(conn, schema: str, table: str, wanted: tuple[str, ...], present: set[str]) -> list[dict]:
    fields = [
        sql.Identifier(name) if name in present else sql.SQL("NULL AS {}").format(sql.Identifier(name))
        for name in wanted
    ]
    order = [name for name in ORDER.get(table, ("id",)) if name in present]
    query = sql.SQL("SELECT {fields} FROM {table}").format(
        fields=sql.SQL(", ").join(fields), table=sql.Identifier(schema, table)
    )
    if order:
        query += sql.SQL(" ORDER BY {}").format(sql.SQL(", ").join(map(sql.Identifier, order)))
    return conn.execute(query).fetchall()
