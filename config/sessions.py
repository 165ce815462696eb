"""Sessions in the database, read with one plain query.

Every signed-in request loads its session first. Django's database store does that through the ORM, whose
query building costs about a third of a cached page's time; this store reads the same row with one SQL
statement and otherwise is Django's store unchanged (saving, expiry, cycling the key at sign-in). A session
signed in by a backend that has moved (apps/accounts/backends.py: RENAMED) names it where it is now.
"""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone

from apps.accounts.backends import RENAMED
from apps.core.sql_registry import register

_SESSION_DATA = register(
    "sessions.session_data",
    both="SELECT session_data FROM django_session WHERE session_key = %s AND expire_date > %s",
    example=["no-such-session-key", "2026-01-01 00:00:00+00:00"],
)


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        model = self.model
        database = connections[router.db_for_read(model)]
        with database.cursor() as cursor:
            cursor.execute(_SESSION_DATA.sql(database.vendor), [self.session_key, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return model(session_data=row[0])  # load() reads only the data

    def load(self):
        data = super().load()
        if data.get(BACKEND_SESSION_KEY) in RENAMED:
            data[BACKEND_SESSION_KEY] = RENAMED[data[BACKEND_SESSION_KEY]]
        return data
