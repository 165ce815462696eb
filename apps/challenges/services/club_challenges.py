"""Dated club challenges: made by an admin on /admin, joined ("Doe mee") and left by members. Progress and
completion follow the dips (club_progress.py); the model's docstring (ClubChallenge) says why it is derived."""

import datetime
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.page_cache import CLUB_CHALLENGES, MEMBER, pages_changed

from ..badge_art import badge_art_delete, badge_art_save
from ..models import ClubChallenge, ClubChallengeEntry
from ..refusals import DipRefusal
from .club_progress import club_goals_recount, club_progress_refresh
from .errors import ChallengeError
from .recount import member_lock

MESSAGE_NAME_MISSING = "Geef de challenge een naam."
MESSAGE_NAME_TAKEN = "Er bestaat al een clubchallenge met deze naam."
MESSAGE_PERIOD_ORDER = "De einddatum ligt vóór de begindatum."
MESSAGE_PERIOD_TOO_LONG = "Een clubchallenge duurt hoogstens {days} dagen."
MESSAGE_KIND_UNKNOWN = "Kies een soort: Elke dag, Aantal dagen of Clubdoel."
MESSAGE_DAYS_TARGET = "Vul het aantal dagen in: minstens 1 en hoogstens {days} (de lengte van de periode)."
MESSAGE_GOAL_TARGET = "Vul het clubdoel in: minstens 1 en hoogstens {maximum} plonsen."
MESSAGE_UNKNOWN = "Deze clubchallenge bestaat niet (meer)."
MESSAGE_ENDED = "Deze clubchallenge is al afgelopen."
MESSAGE_COMPLETED_KEPT = "Je hebt deze clubchallenge voltooid: je badge blijft bewaard."
MESSAGE_HAS_MEMBERS = "Aan deze clubchallenge doen al leden mee: hij kan niet meer verwijderd worden."

PERIOD_MAX_DAYS = 366
CLUB_GOAL_MAX = 100_000


@dataclass(frozen=True)
class ClubChallengeSpec:
    """What the admin filled in; `image_png` is badge art already checked and re-encoded (badge_art_process)."""

    name: str
    description: str
    starts_on: datetime.date
    ends_on: datetime.date
    kind: str
    target: int | None = None
    image_png: bytes | None = field(default=None, repr=False)


def club_challenge_errors(spec: ClubChallengeSpec) -> dict[str, str]:
    """The rules of a club challenge, per form field (Dutch). The form shows them; the service refuses on them."""
    errors: dict[str, str] = {}
    if not spec.name.strip():
        errors["name"] = MESSAGE_NAME_MISSING
    days = (spec.ends_on - spec.starts_on).days + 1
    if days < 1:
        errors["ends_on"] = MESSAGE_PERIOD_ORDER
    elif days > PERIOD_MAX_DAYS:
        errors["ends_on"] = MESSAGE_PERIOD_TOO_LONG.format(days=PERIOD_MAX_DAYS)
    if spec.kind not in ClubChallenge.Kind.values:
        errors["kind"] = MESSAGE_KIND_UNKNOWN
    elif spec.kind == ClubChallenge.Kind.DAYS and "ends_on" not in errors:
        if spec.target is None or not 1 <= spec.target <= days:
            errors["target"] = MESSAGE_DAYS_TARGET.format(days=days)
    elif spec.kind == ClubChallenge.Kind.CLUB_GOAL:
        if spec.target is None or not 1 <= spec.target <= CLUB_GOAL_MAX:
            errors["target"] = MESSAGE_GOAL_TARGET.format(maximum=CLUB_GOAL_MAX)
    return errors


class ClubChallengeInvalid(ChallengeError):
    status = 400

    def __init__(self, errors: dict[str, str]):
        super().__init__(next(iter(errors.values())), code=DipRefusal.CLUB_CHALLENGE_INVALID, fields=errors)


def club_challenge_create(*, spec: ClubChallengeSpec) -> ClubChallenge:
    """An admin makes a club challenge. Its art is stored first and removed again when the save is refused."""
    errors = club_challenge_errors(spec)
    if errors:
        raise ClubChallengeInvalid(errors)
    art = badge_art_save(spec.image_png) if spec.image_png is not None else ""
    try:
        with transaction.atomic():
            if ClubChallenge.objects.filter(name__iexact=spec.name.strip()).exists():
                raise ClubChallengeInvalid({"name": MESSAGE_NAME_TAKEN})
            try:
                with transaction.atomic():
                    challenge = ClubChallenge.objects.create(
                        name=spec.name.strip(),
                        description=spec.description.strip(),
                        starts_on=spec.starts_on,
                        ends_on=spec.ends_on,
                        kind=spec.kind,
                        target=None if spec.kind == ClubChallenge.Kind.EVERY_DAY else spec.target,
                        badge_image_url=art,
                    )
            except IntegrityError as exc:  # the same name saved at the same moment
                raise ClubChallengeInvalid({"name": MESSAGE_NAME_TAKEN}) from exc
            pages_changed(CLUB_CHALLENGES)
    except BaseException:
        if art:
            badge_art_delete(art)
        raise
    return challenge


def club_challenge_delete(*, club_challenge_id: int) -> None:
    """An admin removes a club challenge nobody joined (one with members stays: their progress is theirs)."""
    with transaction.atomic():
        challenge = ClubChallenge.objects.select_for_update().filter(pk=club_challenge_id).first()
        if challenge is None:
            raise ChallengeError(MESSAGE_UNKNOWN, code=DipRefusal.CLUB_CHALLENGE_UNKNOWN)
        if challenge.entries.exists():
            raise ChallengeError(MESSAGE_HAS_MEMBERS, code=DipRefusal.CLUB_CHALLENGE_HAS_MEMBERS)
        art = challenge.badge_image_url
        challenge.delete()
        if art:
            transaction.on_commit(lambda: badge_art_delete(art))
        pages_changed(CLUB_CHALLENGES)


@dataclass(frozen=True)
class JoinOutcome:
    entry: ClubChallengeEntry
    created: bool
    completed: tuple[ClubChallenge, ...]  # completed at once (the dips of the period so far reach the goal)


def club_challenge_join(*, user: User, club_challenge_id: int, now: datetime.datetime | None = None) -> JoinOutcome:
    """ "Doe mee": idempotent (a second tap finds the entry) and race-safe (the member's lock serialises their
    taps; the unique constraint is the database's own guard). Possible until the last day of the period;
    the member's dips of the period so far count at once."""
    now = now or timezone.now()
    with transaction.atomic():
        member_lock(user_id=user.pk)
        challenge = ClubChallenge.objects.filter(pk=club_challenge_id).first()
        if challenge is None:
            raise ChallengeError(MESSAGE_UNKNOWN, code=DipRefusal.CLUB_CHALLENGE_UNKNOWN)
        entry = ClubChallengeEntry.objects.filter(user=user, club_challenge=challenge).first()
        if entry is not None:
            return JoinOutcome(entry=entry, created=False, completed=())
        if challenge.ends_on < timezone.localdate(now):
            raise ChallengeError(MESSAGE_ENDED, code=DipRefusal.CLUB_CHALLENGE_ENDED)
        entry = ClubChallengeEntry.objects.create(user=user, club_challenge=challenge, joined_at=now)
        pages_changed(MEMBER, CLUB_CHALLENGES, user_ids=[user.pk])
        completed = club_progress_refresh(user_id=user.pk, now=now)
        entry.refresh_from_db(fields=["completed_at"])
        return JoinOutcome(entry=entry, created=True, completed=completed)


def club_challenge_leave(*, user: User, club_challenge_id: int) -> bool:
    """Stop taking part; idempotent (False when the member was not in it). A completed challenge is kept
    (its badge is the member's). The dips stay: they are the member's, on their card or without one."""
    with transaction.atomic():
        member_lock(user_id=user.pk)
        # The goal before its entries, in the order of club_goals_recount (which may be writing this entry).
        ClubChallenge.objects.select_for_update(no_key=True).filter(pk=club_challenge_id).values_list("pk").first()
        entry = ClubChallengeEntry.objects.filter(user=user, club_challenge_id=club_challenge_id).first()
        if entry is None:
            return False
        if entry.completed_at is not None:
            raise ChallengeError(MESSAGE_COMPLETED_KEPT, code=DipRefusal.CLUB_CHALLENGE_COMPLETED_KEPT)
        entry.delete()
        pages_changed(MEMBER, CLUB_CHALLENGES, user_ids=[user.pk])
        if ClubChallenge.objects.filter(pk=club_challenge_id, kind=ClubChallenge.Kind.CLUB_GOAL).exists():
            # The total lost this member's dips.
            club_goals_recount(challenge_ids=[club_challenge_id], now=timezone.now())
        return True
