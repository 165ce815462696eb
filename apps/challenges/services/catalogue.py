"""The catalogue: challenges and their milestone badges, with their art (the Django admin calls these)."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from apps.core.page_cache import CATALOGUE, pages_changed

from ..badge_art import badge_art_delete, badge_art_save
from ..models import Badge, Challenge, UserBadge, UserChallenge
from ..refusals import DipRefusal
from .errors import ChallengeError

MESSAGE_TARGET_TOO_LOW = "Het doel moet minstens 1 plons zijn."
MESSAGE_MILESTONE_TOO_LOW = "Een mijlpaal moet minstens 1 plons zijn."
MESSAGE_BADGE_BEYOND_TARGET = "De badge bij {milestone} plonsen ligt voorbij het doel van {target} plonsen."
MESSAGE_MILESTONE_TWICE = "Er zijn twee badges bij {milestone} plonsen: één badge per mijlpaal."
MESSAGE_CHALLENGE_HAS_MEMBERS = (
    "Deze challenge heeft deelnemers en kan niet verwijderd worden. Zet hem op inactief (vink 'actief' uit)."
)
MESSAGE_BADGE_EARNED = "De badge {name} is al verdiend en kan niet verwijderd worden."
MESSAGE_CHALLENGE_NAME_TAKEN = "Er bestaat al een challenge met deze naam."


@dataclass(frozen=True)
class BadgeSpec:
    """One milestone badge as the admin wants it. `image_png` is processed art that replaces the image."""

    id: int | None
    name: str = ""
    description: str = ""
    milestone_dips: int = 0
    image_url: str = ""
    image_png: bytes | None = field(default=None, repr=False)
    delete: bool = False


def challenge_rules_check(*, target_dips: int | None, milestones: list[int]) -> None:
    """The catalogue's rules in one place; forms call it for early errors, the service under the lock."""
    errors = []
    if target_dips is None or target_dips < 1:
        errors.append(MESSAGE_TARGET_TOO_LOW)
    if any(milestone is None or milestone < 1 for milestone in milestones):
        errors.append(MESSAGE_MILESTONE_TOO_LOW)
    valid = sorted(milestone for milestone in milestones if milestone is not None and milestone >= 1)
    if target_dips is not None and target_dips >= 1:
        errors += [
            MESSAGE_BADGE_BEYOND_TARGET.format(milestone=m, target=target_dips) for m in valid if m > target_dips
        ]
    errors += [MESSAGE_MILESTONE_TWICE.format(milestone=m) for m, n in sorted(Counter(valid).items()) if n > 1]
    if errors:
        raise ValidationError(errors)


def challenge_save(
    *, challenge: Challenge, badges: Sequence[BadgeSpec] = (), image_png: bytes | None = None
) -> Challenge:
    """Create or change a challenge with its badges, all or nothing. New art is stored first and removed
    again when the save is refused; art that is replaced goes after the commit."""
    written: list[str] = []
    replaced: list[str] = []
    try:
        if image_png is not None:
            challenge.badge_image_url = badge_art_save(image_png)
            written.append(challenge.badge_image_url)
        art = {}
        for index, spec in enumerate(badges):
            if spec.image_png is not None and not spec.delete:
                art[index] = badge_art_save(spec.image_png)
                written.append(art[index])
        with transaction.atomic():
            _challenge_save_locked(challenge=challenge, badges=badges, art=art, replaced=replaced)
            pages_changed(CATALOGUE)
    except BaseException:
        for url in written:
            badge_art_delete(url)
        raise
    transaction.on_commit(lambda: _art_delete_unused(replaced))
    return challenge


def _art_delete_unused(urls: list[str]) -> None:
    """Remove replaced art that no challenge or badge shows any more (an admin may have copied a URL)."""
    for url in set(filter(None, urls)):
        if not (Challenge.objects.filter(badge_image_url=url).exists() or Badge.objects.filter(image_url=url).exists()):
            badge_art_delete(url)


def _challenge_save_locked(*, challenge: Challenge, badges, art: dict[int, str], replaced: list[str]) -> None:
    if challenge.pk is not None:
        # Serialises two admins editing one challenge, and the badge list with it.
        stored = Challenge.objects.select_for_update().only("pk", "badge_image_url").get(pk=challenge.pk)
        if stored.badge_image_url != challenge.badge_image_url:
            replaced.append(stored.badge_image_url)
    existing = {badge.pk: badge for badge in Badge.objects.filter(challenge_id=challenge.pk)} if challenge.pk else {}
    final: dict[int | str, int] = {pk: badge.milestone_dips for pk, badge in existing.items()}
    for index, spec in enumerate(badges):
        key = spec.id if spec.id in existing else f"new-{index}"
        if spec.delete:
            final.pop(key, None)
        else:
            final[key] = spec.milestone_dips
    challenge_rules_check(target_dips=challenge.target_dips, milestones=list(final.values()))
    if Challenge.objects.filter(name=challenge.name).exclude(pk=challenge.pk).exists():
        raise ValidationError(MESSAGE_CHALLENGE_NAME_TAKEN)
    challenge.save()

    doomed = [existing[spec.id] for spec in badges if spec.delete and spec.id in existing]
    earned = set(UserBadge.objects.filter(badge__in=doomed).values_list("badge_id", flat=True))
    if earned:
        raise ValidationError([MESSAGE_BADGE_EARNED.format(name=b.name) for b in doomed if b.pk in earned])
    Badge.objects.filter(pk__in=[badge.pk for badge in doomed]).delete()
    replaced += [badge.image_url for badge in doomed]
    for index, spec in enumerate(badges):
        if spec.delete:
            continue
        badge = existing.get(spec.id) or Badge(challenge=challenge)
        image_url = art.get(index, spec.image_url)
        if badge.pk and badge.image_url != image_url:
            replaced.append(badge.image_url)
        badge.image_url = image_url
        badge.name, badge.description, badge.milestone_dips = spec.name, spec.description, spec.milestone_dips
        try:
            with transaction.atomic():
                badge.save()
        except IntegrityError as exc:  # two milestones swapped in one save: the constraint is not deferred
            raise ValidationError(MESSAGE_MILESTONE_TWICE.format(milestone=spec.milestone_dips)) from exc


def challenge_delete(*, challenge_id: int) -> None:
    """Delete a challenge nobody has taken; one with members can only be deactivated."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
        if challenge is None:
            return
        if UserChallenge.objects.filter(challenge_id=challenge_id).exists():
            raise ChallengeError(MESSAGE_CHALLENGE_HAS_MEMBERS, code=DipRefusal.CHALLENGE_HAS_MEMBERS)
        art = [
            challenge.badge_image_url,
            *Badge.objects.filter(challenge=challenge).values_list("image_url", flat=True),
        ]
        challenge.delete()
        transaction.on_commit(lambda: _art_delete_unused(art))
        pages_changed(CATALOGUE)
