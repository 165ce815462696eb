"""Invitation reads that need no lock."""

import datetime

from django.contrib.auth import get_user_model
from django.db.models.functions import Lower

from .models import Invitation

# Lookups with many addresses go in slices: SQLite limits the number of query parameters.
CHUNK = 500


def _emails_found(queryset, emails: list[str]) -> set[str]:
    """Which of these lower-cased addresses the queryset's `email` holds, whatever the case it was stored in."""
    found: set[str] = set()
    for start in range(0, len(emails), CHUNK):
        chunk = emails[start : start + CHUNK]
        found.update(
            queryset.annotate(email_lower=Lower("email"))
            .filter(email_lower__in=chunk)
            .values_list("email_lower", flat=True)
        )
    return found


def emails_with_account(emails: list[str]) -> set[str]:
    """Which of these lower-cased addresses already have an account."""
    # The user model through Django, not an import: accounts builds on invitations, not the other way round.
    return _emails_found(get_user_model().objects.all(), emails)


def emails_with_open_invitation(emails: list[str], *, now: datetime.datetime) -> set[str]:
    """Which of these lower-cased addresses have an invitation that is still unused and unexpired."""
    return _emails_found(Invitation.objects.filter(used_at__isnull=True, expires_at__gt=now), emails)
