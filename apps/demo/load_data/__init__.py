"""Load data for `make bench`: a big club's worth of members, dips, badges, photos, invitations and events.

    python manage.py seed_load_data                   # 2,000 members, 100,000 dips, 2,000 photos, ...
    python manage.py seed_load_data --members 20 --dips-per-member 10 --photos 15 --invitations 30 --events 4

Idempotent: when the load data is already there with the asked-for numbers it says so and changes
nothing; when it is missing, partial or of other numbers, it removes every load row (and the load
photo files) and writes the whole set again, in one transaction. `--reset` forces that. The same seed
gives the same club (names, plans, which dips have photos); only the dates move with today.

Everything is written with bulk inserts. The rows follow the app's own rules, as `dip_register` and
`challenge_start` would have made them: numbers 1..n per card, one active card per member, archived
cards are completed ones, `completed_at` is the moment of the target dip, and a UserBadge exists for
exactly every milestone a card has reached, earned at the moment of that dip.

Every load account signs in with the password below: it is hashed once and the hash is shared.
The demo catalogue (challenges and badges from the data migration) is read, never changed.
"""

from .cleanup import delete_without_loading, load_counts, load_data_remove, refresh_statistics
from .common import (
    BENCH_MEMBER_EMAIL,
    EVENT_PREFIX,
    LOAD_ADMIN_EMAIL,
    LOAD_ADMIN_TOTP_SECRET,
    LOAD_DOMAIN,
    LOAD_PASSWORD,
    PHOTO_FOLDER,
    load_admin_second_factor,
    member_email,
)
from .seeder import LoadSeeder

__all__ = [
    "BENCH_MEMBER_EMAIL",
    "EVENT_PREFIX",
    "LOAD_ADMIN_EMAIL",
    "LOAD_ADMIN_TOTP_SECRET",
    "LOAD_DOMAIN",
    "LOAD_PASSWORD",
    "PHOTO_FOLDER",
    "LoadSeeder",
    "delete_without_loading",
    "load_admin_second_factor",
    "load_counts",
    "load_data_remove",
    "member_email",
    "refresh_statistics",
]
