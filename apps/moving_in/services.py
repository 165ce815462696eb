"""The import's writes: the data pass (one transaction, one run at a time), and forgetting the bookkeeping.

The photo pass is photos.py: it runs after the data pass has committed, one photo at a time.
"""

import datetime

from django.db import connection, transaction
from django.utils import timezone

from apps.challenges.services.recount import user_dip_count_refresh
from apps.core.page_cache import CATALOGUE, CLUB, EVENTS, MEMBER, pages_changed
from apps.core.sql_registry import register

from .cards import import_cards
from .catalogue import import_catalogue
from .club import import_events, import_invitations
from .context import ImportContext
from .errors import ImportRefused
from .models import ImportedObject
from .refusals import MovingInRefusal
from .report import Report
from .source import SourceData
from .users import import_users

ON_CONFLICT = ("refuse", "skip", "merge")
# pg_advisory_xact_lock key: "koud" + "import" (any constant no other part of the app uses).
ADVISORY_LOCK_KEY = 0x6B6F7564_1D0A
MESSAGE_RUNNING = "Er loopt al een import. Wacht tot die klaar is en probeer het dan opnieuw."
MESSAGE_POSTGRESQL = "De import schrijft alleen in een PostgreSQL-database (DATABASE_URL)."
_IMPORT_LOCK = register(
    "moving_in.import_lock",
    postgresql="SELECT pg_try_advisory_xact_lock(%s)",
    without="the import writes into PostgreSQL only (MESSAGE_POSTGRESQL)",
    example=[ADVISORY_LOCK_KEY],
)


class _DryRunDone(Exception):
    """Rolls the dry run's transaction back once its report is complete."""


def import_lock() -> None:
    """Take the import's lock for this transaction, or refuse: two runs at once would both add everything."""
    with connection.cursor() as cursor:
        cursor.execute(_IMPORT_LOCK.sql(connection.vendor), [ADVISORY_LOCK_KEY])
        if not cursor.fetchone()[0]:
            raise ImportRefused(MESSAGE_RUNNING, code=MovingInRefusal.ALREADY_RUNNING)


def import_data(
    *,
    data: SourceData,
    on_conflict: str = "refuse",
    merge_duplicates: bool = False,
    dry_run: bool = False,
    now: datetime.datetime | None = None,
) -> Report:
    """Bring the old app's members, catalogue, cards, dips, badges, invitations and events in: all or nothing.

    A dry run does the same work inside a transaction that is rolled back, so its report is the real one.
    Nothing here sends mail or push, makes a feed item, a buddy request or a celebration, or shares anything:
    rows are written directly, and the only services called are the silent recounts.
    """
    if connection.vendor != "postgresql":
        raise ImportRefused(MESSAGE_POSTGRESQL, code=MovingInRefusal.NOT_POSTGRESQL)
    if on_conflict not in ON_CONFLICT:
        raise ImportRefused(f"--on-conflict kent alleen {', '.join(ON_CONFLICT)}.", code=MovingInRefusal.BAD_OPTION)
    report = Report(dry_run=dry_run)
    try:
        with transaction.atomic():
            import_lock()
            ctx = ImportContext(
                report=report, on_conflict=on_conflict, merge_duplicates=merge_duplicates, now=now or timezone.now()
            )
            ctx.load_known()
            import_users(ctx, data)
            import_catalogue(ctx, data)
            import_cards(ctx, data)
            import_invitations(ctx, data)
            import_events(ctx, data)
            ImportedObject.objects.bulk_create(ctx.bookkeeping, batch_size=2000)
            for user_id in sorted(ctx.touched_members):
                user_dip_count_refresh(user_id=user_id)
            pages_changed(MEMBER, CLUB, CATALOGUE, EVENTS, user_ids=set(ctx.members.values()))
            if dry_run:
                raise _DryRunDone
    except _DryRunDone:
        pass
    return report


def bookkeeping_forget() -> int:
    """Delete every old id: the import is done and the club is happy. Returns the rows deleted.

    Photos still waiting are lost to the photo pass afterwards; the command says so before it asks."""
    with transaction.atomic():
        import_lock()
        deleted, _ = ImportedObject.objects.all().delete()
        pages_changed(CLUB)  # /admin's count of members not signed in since the move
    return deleted


def member_signed_in(*, user_id: int) -> None:
    """The member's first sign-in since the move is noted (once), so /admin's count goes down."""
    with transaction.atomic():
        marked = ImportedObject.objects.filter(
            kind=ImportedObject.Kind.USER, user_id=user_id, first_sign_in_at__isnull=True
        ).update(first_sign_in_at=timezone.now())
        if marked:
            pages_changed(CLUB)
