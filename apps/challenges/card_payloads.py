"""Reads for the stamp card and a registered dip: the payloads of the stamp-card island (dips, badges, who
signed off, buddies) and what a member hears after registering a dip. Each costs a fixed number of queries."""

from collections import namedtuple
from typing import Any

from django.db.models import Case, CharField, F, Max, Q, Value, When
from django.urls import reverse

from apps.accounts.access import member_mark
from apps.core.formatting import clock_time, dutch_date
from apps.core.prepared import PreparedQuery

from .conditions import SAFETY_NOTE, conditions_display, dip_advice, duration_display, limits_props
from .models import Badge, Dip, DipBuddy, UserBadge, UserChallenge
from .models.cards import image_src_for, physical_status_text
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
    "signed_off_by_name",
    "share_photo",
)
# A dip an organiser signed off at a club swim (apps.attendance, which sits above challenges: read through the
# reverse relation, never imported). None: the member's own dip, or the organiser's account is gone.
MESSAGE_SIGNED_OFF = "Afgetekend door {name}"
SIGNED_OFF_BY_NAME = Case(
    When(attendance__signed_off_by__isnull=False, then=F("attendance__signed_off_by__full_name")),
    default=Value(None),
    output_field=CharField(),
)


def dip_signed_off(dip: Dip) -> Dip:
    """The dip with its `signed_off_by_name` (one query), for a payload that shows the sign-off."""
    dip.signed_off_by_name = (  # type: ignore[attr-defined]  # the annotation stamp_card_props reads in bulk
        Dip.objects.filter(pk=dip.pk).annotate(name=SIGNED_OFF_BY_NAME).values_list("name", flat=True).first()
    )
    return dip


# "Met wie?" on the dip's line: the clubmates it was swum with (the buddies, part of the dip in the logbook).
MESSAGE_BUDDIES = "Met {names}"


def buddies_display(names: list[str]) -> str:
    """ "Met Anna", "Met Anna en Bram", "Met Anna, Bram en Cor"; "" for a dip swum with nobody named."""
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} en {names[-1]}"
    return MESSAGE_BUDDIES.format(names=listed)


BUDDY_COLUMNS = ("created_at", "id", "dip_id", "buddy_dip_id", "buddy_id", "buddy__full_name", "dip__user__full_name")


def _buddies(named: Q, named_me: Q, *, user_id: int):
    """The buddies the member named, and those who named her, as two halves that each find their rows through
    an index: one query with an OR across the two joined dips reads every dip of the club instead."""
    named_by_her = DipBuddy.objects.filter(named, dip__user_id=user_id).exclude(status=DipBuddy.Status.DECLINED)
    naming_her = DipBuddy.objects.filter(named_me, buddy_id=user_id, status=DipBuddy.Status.ACCEPTED)
    # Each half without the model's ordering: SQLite allows an ORDER BY only on the whole UNION.
    return (
        named_by_her.order_by()
        .values_list(*BUDDY_COLUMNS)
        .union(naming_her.order_by().values_list(*BUDDY_COLUMNS), all=True)
        .order_by("created_at", "id")
    )


_CARD_BUDDIES = PreparedQuery(
    lambda user_id, card_id: _buddies(
        Q(dip__user_challenge_id=card_id), Q(buddy_dip__user_challenge_id=card_id), user_id=user_id
    ),
    user_id=int,
    card_id=int,
)


def dip_buddy_names(*, user_id: int, card: UserChallenge | None = None, dip_ids=()) -> dict[int, list[str]]:
    """Per dip of the member (those on `card`, or those in `dip_ids`), the names of the clubmates it was swum
    with, in the order they were named: those the member named (unless they said "Klopt niet"), and the
    member who named them when the member put that on their card ("Zet op mijn kaart": that dip). The same
    days as "Samen met" on /statistieken (apps.logbook). One query, at any size of card."""
    if card is not None:  # the stamp card's, on every render of it: compiled once
        rows = _CARD_BUDDIES.rows(user_id=user_id, card_id=card.pk)
    else:
        rows = _buddies(Q(dip_id__in=dip_ids), Q(buddy_dip_id__in=dip_ids), user_id=user_id)
    names: dict[int, list[str]] = {}
    for _created_at, _id, dip_id, buddy_dip_id, buddy_id, buddy_name, tagger_name in rows:
        # The member's own dip names the buddy; a buddy's dip put on the member's card names its owner.
        key, name = (buddy_dip_id, tagger_name) if buddy_id == user_id else (dip_id, buddy_name)
        name = name.strip() or "Zwemmer"
        if key is not None and name not in names.setdefault(key, []):
            names[key].append(name)
    return names


def _signed_off_by(dip) -> str | None:
    """From the row's `signed_off_by_name` (annotated with SIGNED_OFF_BY_NAME); a dip read without it (one just
    registered by the member) has no sign-off."""
    name = getattr(dip, "signed_off_by_name", None)
    return None if name is None else MESSAGE_SIGNED_OFF.format(name=name.strip() or "Zwemmer")


# What a member hears after registering a dip (dip_registered_payload).
MESSAGE_ADDED = "Plons toegevoegd!"
# One swim, one stamp (services/same_swim.py): the answer's `outcome` says which happened; the island says it.
OUTCOME_NEW = "new"
OUTCOME_CONFIRMED = "confirmed"
MESSAGE_ALREADY_ON_CARD = "Die plons stond al op je kaart: er komt geen tweede stempel bij."
MESSAGE_BADGE = "Badge verdiend: {name}!"
MESSAGE_WATERDIEREN_DONE = "Waterdieren Stempelkaart voltooid! Alle badges verzameld!"
MESSAGE_CHALLENGE_DONE = "Challenge voltooid! Je foto's en badges blijven bewaard."
MESSAGE_CLUB_DONE = "Clubchallenge voltooid: {name}! Je badge staat bij je verdiende badges."
# How long each toast stays: the bigger the news, the longer.
TOAST_ADDED_MS = 3000
TOAST_BADGE_MS = 5000
TOAST_COMPLETED_MS = 10000


def photo_urls(dip: Dip) -> tuple[str | None, str | None]:
    if not dip.photo:
        return None, None
    return reverse("dip_photo", args=[dip.pk]), reverse("dip_thumbnail", args=[dip.pk])


def dip_payload(dip: Dip, buddies: dict[int, list[str]] | None = None) -> dict:
    """A Dip, or any row with the DIP_PAYLOAD_COLUMNS (see stamp_card_props). `buddies` are the names per dip
    read in bulk (dip_buddy_names); without them the dip's own are read (one query)."""
    if buddies is None:
        buddies = dip_buddy_names(user_id=dip.user_id, dip_ids=[dip.pk])
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
        "signedOffBy": _signed_off_by(dip),
        # Until when the server still takes it back (only the card's latest dip; the server judges).
        "undoUntil": (dip.created_at + UNDO_WINDOW).isoformat(),
        # "Deel deze foto met de club" (apps/club shows it in the feed while the member shares dips).
        "sharePhoto": dip.share_photo,
        # "Met Anna en Bram": the clubmates it was swum with; "" for none.
        "buddiesDisplay": buddies_display(buddies.get(dip.pk, [])),
    }


def badge_payload(badge: Badge, award: UserBadge | None = None) -> dict:
    return _badge_props(
        (badge.pk, badge.name, badge.description, badge.milestone_dips, badge.image_url),
        None if award is None else (award.earned_at, award.physical_status, award.physical_status_on),
    )


def _badge_props(badge: tuple, award: tuple | None) -> dict:
    """From a row of _BADGE_COLUMNS and one of _AWARD_COLUMNS (without its badge) or None: not earned."""
    pk, name, description, milestone, image_url = badge
    return {
        "id": pk,
        "name": name,
        "description": description,
        "milestone": milestone,
        "imageUrl": image_src_for(image_url),
        "earned": award is not None,
        "earnedAtDisplay": dutch_date(award[0]) if award else None,
        "physicalStatusDisplay": physical_status_text(award[1], award[2]) if award else None,
    }


# The badges and awards of the stamp card, on every render of it: plain rows, compiled once.
_BADGE_COLUMNS = ("pk", "name", "description", "milestone_dips", "image_url")
_CARD_BADGES = PreparedQuery(
    lambda challenge_id: (
        Badge.objects.filter(challenge_id=challenge_id).order_by("milestone_dips").values_list(*_BADGE_COLUMNS)
    ),
    challenge_id=int,
)
_CARD_AWARDS = PreparedQuery(
    lambda card_id: UserBadge.objects.filter(user_challenge_id=card_id).values_list(
        "badge_id", "earned_at", "physical_status", "physical_status_on"
    ),
    card_id=int,
)


_DIP_ROW: Any = namedtuple("DipRow", DIP_PAYLOAD_COLUMNS)  # type: ignore[misc]  # noqa: PYI024 - the columns, named
# The card's dips, on every render of the stamp card: compiled once (apps/core/prepared.py).
_CARD_DIPS = PreparedQuery(
    lambda card_id: (
        Dip.objects.filter(user_challenge_id=card_id)
        .annotate(signed_off_by_name=SIGNED_OFF_BY_NAME)
        .order_by("-number")
        .values_list(*DIP_PAYLOAD_COLUMNS)
    ),
    card_id=int,
)


def stamp_card_props(card: UserChallenge) -> dict:
    """Everything the stamp card island shows, in the page's first HTML (no request waterfall)."""
    challenge = card.challenge
    # Plain rows (pk, number, dip_date, photo) rather than model instances: dip_payload needs no more,
    # and a full card is a hundred rows or more.
    dips: list[Any] = [_DIP_ROW._make(row) for row in _CARD_DIPS.rows(card_id=card.pk)]
    badges = _CARD_BADGES.rows(challenge_id=challenge.pk)
    awards = {row[0]: row[1:] for row in _CARD_AWARDS.rows(card_id=card.pk)}
    buddies = dip_buddy_names(user_id=card.user_id, card=card)
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
        "milestones": [badge[3] for badge in badges],
        "badges": [_badge_props(badge, awards.get(badge[0])) for badge in badges],
        "recentDips": [dip_payload(dip, buddies) for dip in dips[:RECENT_DIPS]],
        "photos": [dip_payload(dip, buddies) for dip in dips if dip.photo],
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
    (toasts with their durations, and which celebration, if any: a completion outranks a badge). A club
    challenge the dip completed is a completion too. A dip without a card answers with no card state."""
    card = outcome.user_challenge
    toasts = [{"text": MESSAGE_ADDED, "durationMs": TOAST_ADDED_MS}]
    celebration = None
    if outcome.badge is not None:
        toasts.append({"text": MESSAGE_BADGE.format(name=outcome.badge.name), "durationMs": TOAST_BADGE_MS})
        celebration = "milestone"
    if outcome.completed and card is not None:
        done = MESSAGE_WATERDIEREN_DONE if card.challenge.is_waterdieren else MESSAGE_CHALLENGE_DONE
        toasts.append({"text": done, "durationMs": TOAST_COMPLETED_MS})
        celebration = "completion"
    for club_challenge in outcome.club_completed:
        toasts.append({"text": MESSAGE_CLUB_DONE.format(name=club_challenge.name), "durationMs": TOAST_COMPLETED_MS})
        celebration = "completion"
    if outcome.confirmed:
        toasts, celebration = [], None
    completed_at = card.completed_at if card is not None else None
    return {
        "message": MESSAGE_ALREADY_ON_CARD if outcome.confirmed else MESSAGE_ADDED,
        "outcome": OUTCOME_CONFIRMED if outcome.confirmed else OUTCOME_NEW,
        "dip": dip_payload(outcome.dip),
        "dipCount": outcome.dip_count,
        "completed": outcome.completed,
        "completedAt": completed_at.isoformat() if completed_at else None,
        "completedAtDisplay": dutch_date(completed_at) or None,
        "badge": badge_payload(outcome.badge, outcome.award) if outcome.badge else None,
        "celebration": celebration,
        "toasts": toasts,
        # Never a reward: one calm line for cold water or a dip without a buddy (apps.together shows it).
        "advice": dip_advice(water_temperature=outcome.dip.water_temperature, buddy_count=outcome.dip.buddies.count()),
    }


def spot_suggestions_for(user_id: int) -> list[str]:
    """The member's own earlier spots, most recently used first (for the "Plek" field)."""
    return [row[0] for row in _SPOTS.rows(user_id=user_id)]


def _spots(user_id: int):
    return (
        Dip.objects.filter(user_id=user_id)
        .exclude(spot="")
        .values("spot")
        .annotate(last_used=Max("created_at"))
        .order_by("-last_used", "spot")[:SPOT_SUGGESTIONS]
    )


_SPOTS = PreparedQuery(_spots, user_id=int)
