"""The progress of dated club challenges, derived from the dips (see the ClubChallenge docstring), and the one
fact stored from it: `ClubChallengeEntry.completed_at`. Every change of a member's dips ends in
`club_progress_refresh` (through recount.user_dip_count_refresh, which every dip service calls); joining and
leaving call it too. Reads for pages use `member_days` and `club_goal_totals` (a fixed number of queries)."""

import datetime
from collections.abc import Iterable, Sequence

from django.db.models import F, Func, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.core.page_cache import CLUB_CHALLENGES, pages_changed

from ..models import ClubChallenge, ClubChallengeEntry, Dip


def member_dates(*, user_id: int, challenges: Sequence[ClubChallenge]) -> set[datetime.date]:
    """The distinct dates of the member's dips within the periods of `challenges` (one query)."""
    if not challenges:
        return set()
    start = min(challenge.starts_on for challenge in challenges)
    end = max(challenge.ends_on for challenge in challenges)
    return set(
        Dip.objects.filter(user_id=user_id, dip_date__gte=start, dip_date__lte=end)
        .order_by()
        .values_list("dip_date", flat=True)
        .distinct()
    )


def days_done(challenge: ClubChallenge, dates: Iterable[datetime.date]) -> int:
    """The days of the period on which the member dipped: a day counts once, however many dips it has."""
    return sum(1 for day in dates if challenge.runs_on(day))


def member_days(*, user_id: int, challenges: Sequence[ClubChallenge]) -> dict[int, int]:
    dates = member_dates(user_id=user_id, challenges=challenges)
    return {challenge.pk: days_done(challenge, dates) for challenge in challenges}


def club_goal_total():
    """An annotation for ClubChallenge: the dips of everyone taking part, inside the period."""
    dips = (
        Dip.objects.filter(
            user_id__in=ClubChallengeEntry.objects.filter(club_challenge_id=OuterRef(OuterRef("pk"))).values("user_id"),
            dip_date__gte=OuterRef("starts_on"),
            dip_date__lte=OuterRef("ends_on"),
        )
        .order_by()
        .annotate(n=Func(F("pk"), function="COUNT"))
        .values("n")
    )
    return Coalesce(Subquery(dips), 0)


def club_goal_totals(challenge_ids: Iterable[int]) -> dict[int, int]:
    ids = list(challenge_ids)
    if not ids:
        return {}
    return dict(ClubChallenge.objects.filter(pk__in=ids).annotate(total=club_goal_total()).values_list("pk", "total"))


def club_progress_refresh(*, user_id: int, now: datetime.datetime | None = None) -> tuple[ClubChallenge, ...]:
    """Set or clear `completed_at` of the member's entries after their dips changed; call it inside the
    transaction of the change, under the member's lock (member_lock). Returns the club challenges this member
    newly completed (for the celebration).

    The day kinds look at the member's own dips only, serialised by the member's lock. A club goal depends on
    everyone's dips: its row is locked (in id order) before its total is counted, so of two dips at once the
    later one counts both, and the goal reached is seen; reaching it completes every participant's entry."""
    now = now or timezone.now()
    entries = list(
        ClubChallengeEntry.objects.filter(user_id=user_id)
        .select_related("club_challenge")
        .order_by("club_challenge_id")
    )
    if not entries:
        return ()
    newly: list[ClubChallenge] = []
    day_entries = [entry for entry in entries if not entry.club_challenge.is_club_goal]
    if day_entries:
        done = member_days(user_id=user_id, challenges=[entry.club_challenge for entry in day_entries])
        for entry in day_entries:
            reached = done[entry.club_challenge_id] >= entry.club_challenge.goal
            if reached and entry.completed_at is None:
                entry.completed_at = now
                entry.save(update_fields=["completed_at"])
                newly.append(entry.club_challenge)
            elif not reached and entry.completed_at is not None:
                entry.completed_at = None
                entry.save(update_fields=["completed_at"])
    goal_ids = [entry.club_challenge_id for entry in entries if entry.club_challenge.is_club_goal]
    if goal_ids:
        completed = club_goals_recount(challenge_ids=goal_ids, now=now)
        newly += [entry.club_challenge for entry in entries if (entry.club_challenge_id, user_id) in completed]
    return tuple(newly)


def club_goals_recount(*, challenge_ids: Sequence[int], now: datetime.datetime) -> set[tuple[int, int]]:
    """Lock the club goals, count their totals and complete (or open again) every participant's entry.
    Returns the (challenge id, user id) pairs newly completed.

    Locks: the caller holds its member's row; this takes the goals' rows, then writes entries. It never
    touches another member's row (they may hold it while they wait for this goal: a deadlock): so the other
    participants' pages are declared through the club challenges' scope, which every page showing a club
    challenge declares, not through their member versions."""
    locked = list(
        ClubChallenge.objects.select_for_update(no_key=True)
        .filter(pk__in=challenge_ids)
        .order_by("pk")
        .values_list("pk", "target")
    )
    totals = club_goal_totals(pk for pk, _ in locked)
    completed: set[tuple[int, int]] = set()
    for pk, target in locked:
        entries = ClubChallengeEntry.objects.filter(club_challenge_id=pk)
        if totals.get(pk, 0) >= (target or 0):
            users = set(entries.filter(completed_at__isnull=True).values_list("user_id", flat=True))
            entries.filter(user_id__in=users).update(completed_at=now)
            completed |= {(pk, user) for user in users}
        else:
            entries.filter(completed_at__isnull=False).update(completed_at=None)
    pages_changed(CLUB_CHALLENGES)
    return completed
