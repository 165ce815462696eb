"""Invitations: used ones (by load members), active and expired."""

import datetime
import random
from typing import TYPE_CHECKING

from apps.accounts.models import User
from apps.invitations.models import CODE_LENGTH, VALID_DAYS, Invitation
from apps.invitations.services import CODE_ALPHABET

from .common import LOAD_DOMAIN

if TYPE_CHECKING:
    from .seeder import LoadSeeder


def write_invitations(seeder: "LoadSeeder", admin: User, users: list[User]):
    """A mix: 40% used (by a load member, at the moment they joined), 35% active, 25% expired."""
    rng = random.Random(seeder.seed + 3)
    total = seeder.invitations
    used = min(round(total * 0.4), len(users))
    active = round(total * 0.35)
    codes: set[str] = set()
    while len(codes) < total:
        wanted = {"".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)) for _ in range(total - len(codes))}
        wanted -= set(Invitation.objects.filter(code__in=wanted).values_list("code", flat=True))
        codes |= wanted
    codes_in_order = sorted(codes)
    rng.shuffle(codes_in_order)
    rows = []
    for index, code in enumerate(codes_in_order):
        if index < used:
            member = users[index]
            created = member.created_at - datetime.timedelta(days=rng.randint(1, 20))
            rows.append(
                Invitation(
                    code=code,
                    email=member.email if rng.random() < 0.5 else None,
                    invited_by=admin,
                    created_at=created,
                    expires_at=created + datetime.timedelta(days=VALID_DAYS),
                    used_at=member.created_at,
                    used_by=member,
                )
            )
            continue
        if index < used + active:
            created = seeder.now - datetime.timedelta(days=rng.randint(0, VALID_DAYS - 1), minutes=rng.randint(1, 600))
        else:
            created = seeder.now - datetime.timedelta(days=rng.randint(VALID_DAYS + 1, 400))
        rows.append(
            Invitation(
                code=code,
                email=f"uitnodiging{index + 1:04d}@{LOAD_DOMAIN}" if rng.random() < 0.6 else None,
                invited_by=admin,
                created_at=created,
                expires_at=created + datetime.timedelta(days=VALID_DAYS),
            )
        )
    Invitation.objects.bulk_create(rows, batch_size=seeder.batch)
