"""Reads for the dashboard and the stamp card. Each costs a fixed number of queries."""

from dataclasses import dataclass, field

from django.db.models import Count, Max, Prefetch
from django.urls import reverse

from apps.accounts.access import member_mark
from apps.core.formatting import clock_time, dutch_date

from .conditions import SAFETY_NOTE, conditions_display, duration_display, limits_props
from .models import Badge, Challenge, Dip, UserBadge, UserChallenge
from .photos import MAX_SIDE as PHOTO_MAX_SIDE
from .photos import MESSAGE_NOT_AN_IMAGE, max_photo_bytes
from .services.dips import UNDO_WINDOW, DipOutcome

RECENT_DIPS = 10
SPOT_SUGGESTIONS = 20
# The columns a dip's payload reads: a full card is a hundred rows or more, so plain rows, not models.
DIP_PAYLOAD_COLUMNS = (
    "pk",
    "number",
    "dip_date",
    "photo",
    "created_at",
    "water_temperature",
    "duration_seconds",
    "spot",
    "note",
)

# What a member hears after registering a dip (dip_registered_payload).
MESSAGE_ADDED = "Plons toegevoegd!"
MESSAGE_BADGE = "Badge verdiend: {name}!"
MESSAGE_WATERDIEREN_DONE = "Waterdieren Stempelkaart voltooid! Alle badges verzameld!"
MESSAGE_CHALLENGE_DONE = "Challenge voltooid! Je foto's en badges blijven bewaard."
# How long each toast stays: the bigger the news, the longer.
TOAST_ADDED_MS = 3000
TOAST_BADGE_MS = 5000
TOAST_COMPLETED_MS = 10000


@dataclass
class BadgeGroup:
    challenge: Challenge
    awards: list[UserBadge] = field(default_factory=list)


@dataclass
class Dashboard:
    active_challenges: list[UserChallenge]
    badge_groups: list[BadgeGroup]
    badge_count: int
    waterdieren: Challenge | None
    special_challenges: list[Challenge]

    @property
    def can_start(self) -> bool:
        return not any(not card.is_completed for card in self.active_challenges)


def dashboard_for(user) -> Dashboard:
    active: list[UserChallenge] = list(
        UserChallenge.objects.filter(user=user, is_active=True)
        .select_related("challenge")
        .annotate(dip_total=Count("dips"))
    )
    groups = _newest_badges_per_challenge(user)
    # The page offers the catalogue only to a member who can start a challenge: only then is it read
    # (two queries saved on every visit of a member with a card under way).
    can_start = not any(not card.is_completed for card in active)
    catalogue = (
        list(
            Challenge.objects.filter(is_active=True)
            .prefetch_related(Prefetch("badges", queryset=Badge.objects.order_by("milestone_dips")))
            .order_by("target_dips", "name")
        )
        if can_start
        else []
    )
    waterdieren = next((c for c in catalogue if c.is_waterdieren), None)
    return Dashboard(
        active_challenges=active,
        badge_groups=groups,
        badge_count=sum(len(group.awards) for group in groups),
        waterdieren=waterdieren,
        special_challenges=[c for c in catalogue if not c.is_waterdieren],
    )


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


def active_card_for(user) -> UserChallenge | None:
    return UserChallenge.objects.filter(user=user, is_active=True).select_related("challenge").first()


def photo_urls(dip: Dip) -> tuple[str | None, str | None]:
    if not dip.photo:
        return None, None
    return reverse("dip_photo", args=[dip.pk]), reverse("dip_thumbnail", args=[dip.pk])


def dip_payload(dip: Dip) -> dict:
    """A Dip, or any row with the DIP_PAYLOAD_COLUMNS (see stamp_card_props)."""
    photo, thumbnail = photo_urls(dip)
    temperature = dip.water_temperature
    return {
        "id": dip.pk,
        "number": dip.number,
        "dipDate": dip.dip_date.isoformat(),
        # With the time of the tap (created_at), so two dips on one day can be told apart.
        "dipDateDisplay": f"{dutch_date(dip.dip_date)}, {clock_time(dip.created_at)}",
        "photoUrl": photo,
        "thumbnailUrl": thumbnail,
        # The member's own log; the island's form edits these, the line shows them.
        "waterTemperature": float(temperature) if temperature is not None else None,
        "durationSeconds": dip.duration_seconds,
        "durationDisplay": duration_display(dip.duration_seconds),
        "spot": dip.spot,
        "note": dip.note,
        "conditionsDisplay": conditions_display(
            water_temperature=temperature, duration_seconds=dip.duration_seconds, spot=dip.spot
        ),
        # Until when the server still takes it back (only the card's latest dip; the server judges).
        "undoUntil": (dip.created_at + UNDO_WINDOW).isoformat(),
    }


def badge_payload(badge: Badge, award: UserBadge | None = None) -> dict:
    return {
        "id": badge.pk,
        "name": badge.name,
        "description": badge.description,
        "milestone": badge.milestone_dips,
        "imageUrl": badge.image_src,
        "earned": award is not None,
        "earnedAtDisplay": dutch_date(award.earned_at) if award else None,
        "physicalStatusDisplay": award.physical_status_text if award else None,
    }


def stamp_card_props(card: UserChallenge) -> dict:
    """Everything the stamp card island shows, in the page's first HTML (no request waterfall)."""
    challenge = card.challenge
    # Plain rows (pk, number, dip_date, photo) rather than model instances: dip_payload needs no more,
    # and a full card is a hundred rows or more.
    dips = list(
        Dip.objects.filter(user_challenge=card).order_by("-number").values_list(*DIP_PAYLOAD_COLUMNS, named=True)
    )
    badges = list(Badge.objects.filter(challenge=challenge).order_by("milestone_dips"))
    awards = {award.badge_id: award for award in UserBadge.objects.filter(user_challenge=card)}
    return {
        "userChallengeId": card.pk,
        "challenge": {
            "name": challenge.name,
            "description": challenge.description,
            "category": challenge.category,
            "targetDips": challenge.target_dips,
        },
        "dipCount": len(dips),
        "completedAt": card.completed_at.isoformat() if card.completed_at else None,
        "completedAtDisplay": dutch_date(card.completed_at) or None,
        "milestones": [badge.milestone_dips for badge in badges],
        "badges": [badge_payload(badge, awards.get(badge.pk)) for badge in badges],
        "recentDips": [dip_payload(dip) for dip in dips[:RECENT_DIPS]],
        "photos": [dip_payload(dip) for dip in dips if dip.photo],
        "endpoints": {
            "registerDip": reverse("dip_register"),
            # With 0 in place of the dip's id: the island fills in the id of the dip it means.
            "updateDip": reverse("dip_update", args=[0]),
            "undoDip": reverse("dip_undo", args=[0]),
        },
        "spotSuggestions": spot_suggestions_for(card.user_id),
        "conditionLimits": limits_props(),
        "safetyNote": SAFETY_NOTE,
        # The server's limit (settings.PHOTO_MAX_BYTES), so the island refuses a too-large photo before sending it.
        "photoMaxBytes": max_photo_bytes(),
        "photoNotImageMessage": MESSAGE_NOT_AN_IMAGE,
        # The longest side the server keeps: the phone shrinks a photo to it before the upload.
        "photoMaxSide": PHOTO_MAX_SIDE,
        # Whose taps these are: a tap queued on the phone is only sent with this member's session.
        "member": member_mark(card.user_id),
    }


def dip_registered_payload(outcome: DipOutcome) -> dict:
    """The answer to a registered dip: the new state of the card, and what to tell and show the member
    (toasts with their durations, and which celebration, if any: a completion outranks a badge)."""
    card = outcome.user_challenge
    toasts = [{"text": MESSAGE_ADDED, "durationMs": TOAST_ADDED_MS}]
    celebration = None
    if outcome.badge is not None:
        toasts.append({"text": MESSAGE_BADGE.format(name=outcome.badge.name), "durationMs": TOAST_BADGE_MS})
        celebration = "milestone"
    if outcome.completed:
        done = MESSAGE_WATERDIEREN_DONE if card.challenge.is_waterdieren else MESSAGE_CHALLENGE_DONE
        toasts.append({"text": done, "durationMs": TOAST_COMPLETED_MS})
        celebration = "completion"
    return {
        "message": MESSAGE_ADDED,
        "dip": dip_payload(outcome.dip),
        "dipCount": outcome.dip_count,
        "completed": outcome.completed,
        "completedAt": card.completed_at.isoformat() if card.completed_at else None,
        "completedAtDisplay": dutch_date(card.completed_at) or None,
        "badge": badge_payload(outcome.badge, outcome.award) if outcome.badge else None,
        "celebration": celebration,
        "toasts": toasts,
    }


def spot_suggestions_for(user_id: int) -> list[str]:
    """The member's own earlier spots, most recently used first (for the "Plek" field)."""
    latest = (
        Dip.objects.filter(user_id=user_id)
        .exclude(spot="")
        .values("spot")
        .annotate(last_used=Max("created_at"))
        .order_by("-last_used", "spot")[:SPOT_SUGGESTIONS]
    )
    return [row["spot"] for row in latest]
