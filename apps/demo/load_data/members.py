"""The load members and the load admin (with the second factor the admin role needs)."""

import datetime
import random
from typing import TYPE_CHECKING

from apps.accounts.models import User, UserRole
from apps.club.models import ClubSharing

from .common import FIRST_NAMES, LAST_NAMES, LOAD_ADMIN_EMAIL, load_admin_second_factor, member_email

if TYPE_CHECKING:
    from .seeder import LoadSeeder


def write_users(seeder: "LoadSeeder", member_plans: list, password: str) -> tuple[list[User], User]:
    name_rng = random.Random(seeder.seed + 1)
    users = [
        User(
            email=member_email(number),
            full_name=f"{name_rng.choice(FIRST_NAMES)} {name_rng.choice(LAST_NAMES)}",
            newsletter_consent=name_rng.random() < 0.4,
            created_at=member_plans[number - 1][0],
            # The dips _write_dips writes for this member (bulk writes bypass the dip services' counter).
            dip_count=sum(len(moments) for _challenge, _dips, moments in member_plans[number - 1][1]),
            password=password,
        )
        for number in range(1, seeder.members + 1)
    ]
    users = User.objects.bulk_create(users, batch_size=seeder.batch)
    # The club feed (/club) needs members who share: about 60% chose to, 15% chose not to, the rest never chose.
    choices = [(user, name_rng.random()) for user in users]
    ClubSharing.objects.bulk_create(
        [ClubSharing(user=user, share_dips=draw < 0.6) for user, draw in choices if draw < 0.75],
        batch_size=seeder.batch,
    )
    admin = User.objects.create(
        email=LOAD_ADMIN_EMAIL,
        full_name="Load Admin",
        password=password,
        created_at=seeder.now - datetime.timedelta(days=800),
    )
    UserRole.objects.create(user=admin, role=UserRole.Role.ADMIN)
    load_admin_second_factor()
    return users, admin
