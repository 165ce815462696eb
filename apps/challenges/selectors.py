"""Reads for the dashboard and the stamp card. Each costs a fixed number of queries."""

import datetime
from dataclasses import dataclass, field
from functools import cached_property

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Case, Count, Exists, Max, OuterRef, Prefetch, Q, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.core.prepared import PreparedQuery

from .models import Badge, Challenge, ClubChallenge, ClubChallengeEntry, Dip, UserBadge, UserChallenge
from .services.club_progress import club_goal_total, member_days


@dataclass
class BadgeGroup:
    challenge: Challenge
    awards: list[UserBadge] = field(default_factory=list)


class Dashboard:
    """The member's dashboard, each part read when a section of the page shows it: a section served from the
    cache (apps/core/page_sections.py) never reads its part. One query per part at any size."""

    def __init__(self, user):
        self.user = user
        self._club_badge_count = 0

    @cached_property
    def active_challenges(self) -> list[UserChallenge]:
        """Her cards under way with their challenges and `dip_total`."""
        cards = []
        for row in _ACTIVE_CARDS.rows(user_id=self.user.pk):
            card, challenge, (dip_total,) = _instances(row, UserChallenge, Challenge)
            card.challenge = challenge
            card.dip_total = dip_total
            cards.append(card)
        return cards

    @cached_property
    def badge_groups(self) -> list[BadgeGroup]:
        return _newest_badges_per_challenge(self.user)

    @cached_property
    def club_badges(self) -> list[ClubChallengeEntry]:
        return club_badges_for(self.user)

    @cached_property
    def badge_summary(self) -> str:
        """What chooses the badges' section besides the catalogue and her other data: her awards (an award is
        never changed, only added with a higher id or taken away, so count and highest id tell every set
        apart) and how many club badges she has. One small query instead of rendering every tile."""
        count, last, club_count = _BADGE_SUMMARY.rows(user_id=self.user.pk)[0]
        self._club_badge_count = club_count
        return f"{count}:{last}:{club_count}"

    @cached_property
    def badge_count(self) -> int:
        # The club badges' count from the summary when it was read (the badges' section is keyed by it).
        clubs = self._club_badge_count if "badge_summary" in self.__dict__ else len(self.club_badges)
        return sum(len(group.awards) for group in self.badge_groups) + clubs

    @cached_property
    def _catalogue(self) -> list[Challenge]:
        # The catalogue is shown to every member: the special challenges admins make are visible with a card
        # under way too (only the start buttons wait until that card is done).
        return list(
            Challenge.objects.filter(is_active=True)
            .prefetch_related(Prefetch("badges", queryset=Badge.objects.order_by("milestone_dips")))
            .order_by("target_dips", "name")
        )

    @cached_property
    def waterdieren(self) -> Challenge | None:
        return next((c for c in self._catalogue if c.is_waterdieren), None)

    @cached_property
    def special_challenges(self) -> list[Challenge]:
        return [c for c in self._catalogue if not c.is_waterdieren]

    @cached_property
    def club_challenges(self) -> list["ClubChallengeCard"]:
        return club_challenges_for(self.user)

    @cached_property
    def has_dipped(self) -> bool:
        """Any dip ever ("Klaar voor je eerste plons?" until then): known from her card under way when it holds a
        dip, so an ordinary dashboard asks nothing more; else one small query."""
        if any(card.dip_total for card in self.active_challenges):  # type: ignore[attr-defined]
            return True
        return Dip.objects.filter(user_id=self.user.pk).exists()

    @property
    def can_start(self) -> bool:
        return not any(not card.is_completed for card in self.active_challenges)

    @property
    def can_register_without_card(self) -> bool:
        """No card takes a dip today, but a club challenge the member joined runs: the dashboard offers
        "Plons registreren" itself (with a card under way the stamp card does)."""
        return self.can_start and can_register_without_card(self.club_challenges)


def _badge_summary(user_id: int):
    def counted(queryset, value):
        return Subquery(queryset.order_by().values("user_id").annotate(value=value).values("value")[:1])

    awards = UserBadge.objects.filter(user_id=user_id)
    club_badges = ClubChallengeEntry.objects.filter(user_id=user_id, completed_at__isnull=False)
    return (
        get_user_model()
        .objects.filter(pk=user_id)
        .order_by()
        .values_list(
            Coalesce(counted(awards, Count("pk")), 0),
            counted(awards, Max("pk")),
            Coalesce(counted(club_badges, Count("pk")), 0),
        )
    )


_BADGE_SUMMARY = PreparedQuery(_badge_summary, user_id=int)


def dashboard_for(user) -> Dashboard:
    return Dashboard(user)


@dataclass
class ClubChallengeCard:
    """A club challenge as one member sees it: their own progress, and for a club goal the club's total."""

    challenge: ClubChallenge
    participants: int
    joined: bool
    completed_at: datetime.datetime | None
    days_done: int = 0
    total: int = 0  # a club goal's dips together
    today: datetime.date = field(default_factory=timezone.localdate)

    @property
    def is_running(self) -> bool:
        return self.challenge.runs_on(self.today)

    @property
    def is_upcoming(self) -> bool:
        return self.today < self.challenge.starts_on

    @property
    def days_left(self) -> int:
        """The days of the period still to come, today included."""
        start = max(self.today, self.challenge.starts_on)
        return max(0, (self.challenge.ends_on - start).days + 1)

    @property
    def percent(self) -> int:
        done = self.total if self.challenge.is_club_goal else self.days_done
        return min(100, round(100 * done / self.challenge.goal)) if self.challenge.goal else 0


def _club_challenges_with_progress(today: datetime.date, user_id: int):
    mine = ClubChallengeEntry.objects.filter(club_challenge=OuterRef("pk"), user_id=user_id)
    return (
        ClubChallenge.objects.filter(ends_on__gte=today)
        .annotate(
            participants=Count("entries"),
            joined=Exists(mine),
            my_completed_at=Subquery(mine.values("completed_at")[:1]),
            total=Case(When(kind=ClubChallenge.Kind.CLUB_GOAL, then=club_goal_total()), default=Value(0)),
        )
        .order_by("starts_on", "ends_on", "pk")
        .values_list(*_columns(ClubChallenge), "participants", "joined", "my_completed_at", "total")
    )


# The dashboard asks it on every render after her dip, mostly of a club with no club challenge running.
_CLUB_CHALLENGES_WITH_PROGRESS = PreparedQuery(_club_challenges_with_progress, today=datetime.date, user_id=int)


def club_challenges_for(user, *, today: datetime.date | None = None) -> list[ClubChallengeCard]:
    """The club challenges running or still to come, with the member's progress: two queries at any size
    (the challenges with their counts, and the member's dip dates)."""
    today = today or timezone.localdate()
    rows = _CLUB_CHALLENGES_WITH_PROGRESS.rows(today=today, user_id=user.pk)
    challenges = [(challenge, *rest) for challenge, rest in (_instances(row, ClubChallenge) for row in rows)]
    joined_day_kinds = [challenge for challenge, _, joined, _, _ in challenges if joined and not challenge.is_club_goal]
    days = member_days(user_id=user.pk, challenges=joined_day_kinds)
    return [
        ClubChallengeCard(
            challenge=challenge,
            participants=participants,
            joined=joined,
            completed_at=completed_at,
            days_done=days.get(challenge.pk, 0),
            total=total,
            today=today,
        )
        for challenge, participants, joined, completed_at, total in challenges
    ]


def club_challenges_admin() -> list[ClubChallenge]:
    """Every club challenge for /admin, newest period first, with `participants`, `completed` and `total`
    (a club goal's dips together): one query at any size."""
    return list(
        ClubChallenge.objects.annotate(
            participants=Count("entries"),
            completed=Count("entries", filter=Q(entries__completed_at__isnull=False)),
            total=Case(When(kind=ClubChallenge.Kind.CLUB_GOAL, then=club_goal_total()), default=Value(0)),
        ).order_by("-starts_on", "-pk")
    )


def club_badges_for(user) -> list[ClubChallengeEntry]:
    """The club challenges the member completed, newest first: their badges."""
    entries = []
    for row in _CLUB_BADGES.rows(user_id=user.pk):
        entry, club_challenge, _ = _instances(row, ClubChallengeEntry, ClubChallenge)
        entry.club_challenge = club_challenge
        entries.append(entry)
    return entries


def _columns(model, via: str = "") -> tuple[str, ...]:
    return tuple(via + field.attname for field in model._meta.concrete_fields)


def _instances(row: tuple, *models) -> tuple:
    """A prepared row of `_columns(model)` per model, in order, as instances; and what follows them."""
    made, start = [], 0
    for model in models:
        names = _columns(model)
        made.append(model.from_db(DEFAULT_DB_ALIAS, names, row[start : start + len(names)]))
        start += len(names)
    return (*made, row[start:])


# Both read on every render of the dashboard after her dip: compiled once.
_ACTIVE_CARDS = PreparedQuery(
    lambda user_id: (
        UserChallenge.objects.filter(user_id=user_id, is_active=True)
        .annotate(dip_total=Count("dips"))
        .order_by("-started_at", "-pk")
        .values_list(*_columns(UserChallenge), *_columns(Challenge, "challenge__"), "dip_total")
    ),
    user_id=int,
)
_CLUB_BADGES = PreparedQuery(
    lambda user_id: (
        ClubChallengeEntry.objects.filter(user_id=user_id, completed_at__isnull=False)
        .order_by("-completed_at", "-pk")
        .values_list(*_columns(ClubChallengeEntry), *_columns(ClubChallenge, "club_challenge__"))
    ),
    user_id=int,
)


def can_register_without_card(cards: list[ClubChallengeCard]) -> bool:
    return any(card.joined and card.is_running for card in cards)


def _newest_badges_per_challenge(user) -> list[BadgeGroup]:
    """Earned badges grouped per challenge, newest first; only the newest per challenge and badge."""
    awards = (
        UserBadge.objects.filter(user=user)
        .select_related("badge", "user_challenge__challenge")
        .order_by("-earned_at", "-pk")
    )
    groups: dict[int, BadgeGroup] = {}
    seen: set[tuple[int, int]] = set()
    for award in awards:
        challenge = award.user_challenge.challenge
        key = (challenge.pk, award.badge_id)
        if key in seen:
            continue
        seen.add(key)
        groups.setdefault(challenge.pk, BadgeGroup(challenge=challenge)).awards.append(award)
    return list(groups.values())


_CARD_FIELDS = tuple(field.attname for field in UserChallenge._meta.concrete_fields)
_CHALLENGE_FIELDS = tuple(field.attname for field in Challenge._meta.concrete_fields)
# The member's card under way with its challenge, read on every render of the stamp card: compiled once.
_ACTIVE_CARD = PreparedQuery(
    lambda user_id: (
        UserChallenge.objects.filter(user_id=user_id, is_active=True)
        .order_by("pk")
        .values_list(*_CARD_FIELDS, *(f"challenge__{name}" for name in _CHALLENGE_FIELDS))[:1]
    ),
    user_id=int,
)


def active_card_for(user) -> UserChallenge | None:
    """Her card under way (at most one) with its challenge: one query."""
    row = next(iter(_ACTIVE_CARD.rows(user_id=user.pk)), None)
    if row is None:
        return None
    card = UserChallenge.from_db(DEFAULT_DB_ALIAS, _CARD_FIELDS, row[: len(_CARD_FIELDS)])
    card.challenge = Challenge.from_db(DEFAULT_DB_ALIAS, _CHALLENGE_FIELDS, row[len(_CARD_FIELDS) :])
    return card
