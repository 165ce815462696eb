"""Members the servers can sign in: the test settings hash passwords with MD5, production does not."""

import functools

from django.contrib.auth.hashers import PBKDF2PasswordHasher

from apps.challenges.models import Challenge
from apps.challenges.services.cards import challenge_start
from tests.factories import DEFAULT_PASSWORD, UserFactory

PASSWORD = DEFAULT_PASSWORD


@functools.cache
def _production_hash() -> str:
    return PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt())


def member_with_card(email: str):
    """A member with an active Waterdieren card, whose password production's hasher checks."""
    user = UserFactory(email=email)
    user.password = _production_hash()
    user.save(update_fields=["password"])
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = challenge_start(user=user, challenge_id=waterdieren.pk)
    return user, card
