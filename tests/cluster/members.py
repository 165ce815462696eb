"""Members the servers can sign in: the test settings hash passwords with MD5, production does not."""

import datetime
import functools

from django.contrib.auth.hashers import PBKDF2PasswordHasher

from apps.challenges.models import Challenge, UserChallenge
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
    # Started yesterday: an offline tap of a few hours ago then falls inside the card (an earlier one is refused).
    card.started_at -= datetime.timedelta(days=1)
    UserChallenge.objects.filter(pk=card.pk).update(started_at=card.started_at)
    return user, card
