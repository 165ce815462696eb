"""Invitation reads that need no lock."""

from django.contrib.auth import get_user_model
from django.db.models.functions import Lower

# Lookups with many addresses go in slices: SQLite limits the number of query parameters.
CHUNK = 500


def emails_with_account(emails: list[str]) -> set[str]:
    """Which of these lower-cased addresses already have an account (whatever the case they were stored in)."""
    # The user model through Django, not an import: accounts builds on invitations, not the other way round.
    User = get_user_model()
    found: set[str] = set()
    for start in range(0, len(emails), CHUNK):
        chunk = emails[start : start + CHUNK]
        found.update(
            User.objects.annotate(email_lower=Lower("email"))
            .filter(email_lower__in=chunk)
            .values_list("email_lower", flat=True)
        )
    return found
