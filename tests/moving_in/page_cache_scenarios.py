"""The import's page-cache scenarios for tests/test_page_cache_declared.py: each returns (act, page it changes)."""

import datetime
import uuid

from apps.moving_in.services import bookkeeping_forget, import_data, member_signed_in
from apps.moving_in.source import SourceData

UTC = datetime.UTC


def small_source() -> SourceData:
    """One member of the old app with a stamp card and two dips, in memory (the reader is tested elsewhere)."""
    uid, challenge, card = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    moment = datetime.datetime(2025, 1, 7, 8, 0, tzinfo=UTC)
    return SourceData(
        tables={
            "auth.users": [{"id": uid, "email": "oud@example.nl", "encrypted_password": "", "created_at": moment}],
            "profiles": [{"id": uid, "full_name": "Olga Oud", "newsletter_consent": True, "created_at": moment}],
            "challenges": [{"id": challenge, "name": "Waterdieren Stempelkaart", "category": "waterdieren"}],
            "user_challenges": [{"id": card, "user_id": uid, "challenge_id": challenge, "is_active": True}],
            "dips": [
                {"id": uuid.uuid4(), "user_challenge_id": card, "dip_date": moment.date(), "created_at": moment}
                for _ in range(2)
            ],
        }
    )


def _imported_member_id() -> int:
    from apps.accounts.models import User

    return User.objects.get(email="oud@example.nl").pk


def import_scenario(world):
    return lambda: import_data(data=small_source(), on_conflict="skip"), ("admin", "/admin")


def forget_scenario(world):
    import_data(data=small_source())
    return bookkeeping_forget, ("admin", "/admin")  # the line "nog niet ingelogd sinds de overstap" goes


def signed_in_scenario(world):
    import_data(data=small_source())
    return lambda: member_signed_in(user_id=_imported_member_id()), ("admin", "/admin")
