"""Counting and removing the load data, and fresh planner statistics after writing it."""

from django.db import connection, transaction

from apps.accounts.models import User, UserRole
from apps.challenges.models import (
    BadgeTally,
    Dip,
    DipWeekTally,
    MemberWeekTally,
    UserBadge,
    UserChallenge,
    photo_storage,
)
from apps.club.models import ClubSharing
from apps.core.sql_registry import register
from apps.events.models import Event, EventParticipant
from apps.invitations.models import Invitation

from .common import EVENT_PREFIX, LOAD_ADMIN_EMAIL, PHOTO_FOLDER, _load_members, _load_users

_DELETE = register(
    "load_data.delete_without_loading",
    both="DELETE FROM {table} WHERE {pk} IN ({subquery})",
    parts={"table": '"challenges_userbadge"', "pk": '"id"', "subquery": 'SELECT "id" FROM "challenges_userbadge"'},
)
_STATISTICS = "the load data is the PostgreSQL bench's: SQLite's planner keeps no statistics worth refreshing"
_ANALYZE = register(
    "load_data.analyze", postgresql="ANALYZE {table}", without=_STATISTICS, parts={"table": '"challenges_dip"'}
)
_VACUUM = register(
    "load_data.vacuum",
    postgresql="VACUUM (ANALYZE) {table}",
    without=_STATISTICS,
    parts={"table": '"challenges_dip"'},
    alone=True,
)


def load_counts() -> dict:
    members = _load_members()
    dips = Dip.objects.filter(user__in=members)
    return {
        "members": members.count(),
        "dips": dips.count(),
        "photos": dips.exclude(photo="").count(),
        "invitations": Invitation.objects.filter(invited_by__email=LOAD_ADMIN_EMAIL).count(),
        "events": Event.objects.filter(title__startswith=EVENT_PREFIX).count(),
    }


def delete_without_loading(queryset) -> int:
    """DELETE ... WHERE pk IN (subquery): no rows loaded into Python and no per-row signals. Only for
    dips and awards, whose photo files `load_data_remove` deletes itself."""
    meta = queryset.model._meta
    quote = connection.ops.quote_name
    subquery, params = queryset.values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            _DELETE.sql(connection.vendor, table=quote(meta.db_table), pk=quote(meta.pk.column), subquery=subquery),
            params,
        )
        return cursor.rowcount


def load_data_remove() -> str:
    """Remove every load row and the load photo files. The demo catalogue and other users stay."""
    with transaction.atomic():
        users = _load_users()
        awards = delete_without_loading(UserBadge.objects.filter(user__in=users))
        dips = delete_without_loading(Dip.objects.filter(user__in=users))
        Invitation.objects.filter(invited_by__in=users).delete()
        Invitation.objects.filter(used_by__in=users).delete()
        Event.objects.filter(title__startswith=EVENT_PREFIX).delete()
        user_count, _ = users.delete()
    files = _delete_folder(photo_storage(), PHOTO_FOLDER)
    return f"{dips} plonsen, {awards} badges, {files} fotobestanden, {user_count} rijen met gebruikers"


def refresh_statistics() -> None:
    """After a bulk load, as PostgreSQL's manual advises: fresh planner statistics (without them the
    planner guesses row counts and picks hash joins over whole tables), and a vacuum so that index-only
    scans need not visit the table. Autovacuum would get there too, a minute or so later."""
    if connection.vendor != "postgresql":
        return
    # VACUUM cannot run inside a transaction (tests run in one): then ANALYZE alone.
    command = _ANALYZE if connection.in_atomic_block else _VACUUM
    tables = [model._meta.db_table for model in (User, UserRole, UserChallenge, Dip, UserBadge, Invitation)]
    tables += [Event._meta.db_table, EventParticipant._meta.db_table]
    # The tallies' triggers updated a week's row once per dip written: VACUUM leaves its live row only.
    tables += [model._meta.db_table for model in (DipWeekTally, MemberWeekTally, BadgeTally, ClubSharing)]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(command.sql(connection.vendor, table=connection.ops.quote_name(table)))


def _delete_folder(storage, folder: str) -> int:
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:
        return 0
    removed = 0
    for name in files:
        storage.delete(f"{folder}/{name}")
        removed += 1
    for sub in folders:
        removed += _delete_folder(storage, f"{folder}/{sub}")
    return removed
