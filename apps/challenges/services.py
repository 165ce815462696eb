"""Challenge rules. `dip_register` is the only way a dip is made."""

import datetime
import uuid
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import User

from .badge_art import badge_art_delete, badge_art_save
from .models import Badge, Challenge, Dip, PhysicalStatus, PostalAddress, UserBadge, UserChallenge, photo_storage
from .photos import ProcessedPhoto

MESSAGE_ALREADY_WATERDIEREN = "Je hebt al een actieve Waterdieren Stempelkaart!"
MESSAGE_ALREADY_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."
MESSAGE_CHALLENGE_UNAVAILABLE = "Deze challenge is niet beschikbaar."
MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


@dataclass(frozen=True)
class DipOutcome:
    dip: Dip
    dip_count: int
    badge: Badge | None
    award: UserBadge | None
    completed: bool
    user_challenge: UserChallenge
    replayed: bool = False


def challenge_start(*, user: User, challenge_id: int) -> UserChallenge:
    """Start a challenge. One unfinished challenge at a time; finished ones are archived (kept)."""
    with transaction.atomic():
        # Lock the member's row: two taps on "Start" are serialised, not raced.
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        challenge = Challenge.objects.filter(pk=challenge_id, is_active=True).first()
        if challenge is None:
            raise ChallengeError(MESSAGE_CHALLENGE_UNAVAILABLE)
        current = UserChallenge.objects.filter(user=user, is_active=True).select_related("challenge").first()
        if current is not None and not current.is_completed:
            if challenge.is_waterdieren or current.challenge_type == Challenge.Category.WATERDIEREN:
                raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN)
            raise ChallengeError(MESSAGE_ALREADY_ACTIVE)
        if current is not None:
            current.is_active = False
            current.save(update_fields=["is_active"])
        try:
            with transaction.atomic():
                return UserChallenge.objects.create(user=user, challenge=challenge, challenge_type=challenge.category)
        except IntegrityError as exc:  # the database's own guard, should the lock ever be bypassed
            raise ChallengeError(MESSAGE_ALREADY_WATERDIEREN) from exc


def dip_register(
    *,
    user: User,
    photo: ProcessedPhoto | None = None,
    request_id: uuid.UUID | None = None,
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    """
    now = now or timezone.now()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(user=user, photo_names=names, request_id=request_id, now=now)
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    return outcome


def _photo_delete(names: tuple[str, str]) -> None:
    for name in names:
        if name:
            photo_storage().delete(name)


def _dip_register_locked(
    *, user: User, photo_names: tuple[str, str], request_id: uuid.UUID | None, now: datetime.datetime
) -> DipOutcome:
    with transaction.atomic():
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(user=user, is_active=True)
            .first()
        )
        if card is None:
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        earlier = card.dips.filter(request_id=request_id).first() if request_id else None
        if earlier is not None:
            return _replay(card, earlier)
        if card.is_completed:
            raise ChallengeError(MESSAGE_COMPLETED)
        target = card.challenge.target_dips
        count = card.dips.count()
        if count >= target:
            raise ChallengeError(MESSAGE_MAXIMUM.format(target=target))
        today = timezone.localdate(now)
        if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
            raise ChallengeError(MESSAGE_DAILY_LIMIT)

        number = count + 1
        dip = Dip.objects.create(
            user=user,
            user_challenge=card,
            number=number,
            dip_date=today,
            photo=photo_names[0],
            thumbnail=photo_names[1],
            created_at=now,
            request_id=request_id,
        )
        badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
        award = None
        if badge is not None:
            award = UserBadge.objects.create(user=user, badge=badge, user_challenge=card, earned_at=now)
        completed = number >= target
        if completed:
            card.completed_at = now
            card.save(update_fields=["completed_at"])
        return DipOutcome(dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card)


def _replay(card: UserChallenge, dip: Dip) -> DipOutcome:
    award = (
        UserBadge.objects.filter(user_challenge=card, badge__milestone_dips=dip.number).select_related("badge").first()
    )
    return DipOutcome(
        dip=dip,
        dip_count=card.dips.count(),
        badge=award.badge if award else None,
        award=award,
        completed=card.is_completed and dip.number == card.challenge.target_dips,
        user_challenge=card,
        replayed=True,
    )


def _photo_save(*, user: User, photo: ProcessedPhoto, now: datetime.datetime) -> tuple[str, str]:
    stamp = timezone.localtime(now).strftime("%Y%m%dT%H%M%S%f")
    storage = photo_storage()
    full = storage.save(f"{user.pk}/{stamp}.{photo.extension}", ContentFile(photo.full))
    try:
        thumbnail = storage.save(f"{user.pk}/{stamp}.thumb.{photo.extension}", ContentFile(photo.thumbnail))
    except BaseException:
        storage.delete(full)
        raise
    return full, thumbnail


# --- the catalogue: challenges and their milestone badges (the Django admin calls these) ------------

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


def challenge_save(*, challenge: Challenge, badges: list[BadgeSpec] = (), image_png: bytes | None = None) -> Challenge:
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
            raise ChallengeError(MESSAGE_CHALLENGE_HAS_MEMBERS)
        art = [
            challenge.badge_image_url,
            *Badge.objects.filter(challenge=challenge).values_list("image_url", flat=True),
        ]
        challenge.delete()
        transaction.on_commit(lambda: _art_delete_unused(art))


# --- physical badges ------------------------------------------------------------------------------

MESSAGE_PHYSICAL_NOTHING_CHOSEN = "Kies eerst een of meer badges."
MESSAGE_PHYSICAL_BAD_STATUS = "Kies een geldige status."
MESSAGE_PHYSICAL_FUTURE_DATE = "De datum kan niet in de toekomst liggen."
PHYSICAL_MARK_MAX = 1000  # one admin click; more is a mistake or an attack


def physical_badges_mark(
    *, award_ids: list[int], status: str, on: datetime.date | None = None, today: datetime.date | None = None
) -> int:
    """Give earned badges a physical status (back to waiting, sent or handed over, with the date).
    Returns how many changed."""
    today = today or timezone.localdate()
    if status not in PhysicalStatus.values:
        raise ChallengeError(MESSAGE_PHYSICAL_BAD_STATUS)
    ids = sorted({int(pk) for pk in award_ids})[:PHYSICAL_MARK_MAX]
    if not ids:
        raise ChallengeError(MESSAGE_PHYSICAL_NOTHING_CHOSEN)
    if status == PhysicalStatus.TO_SEND:
        on = None
    else:
        on = on or today
        if on > today:
            raise ChallengeError(MESSAGE_PHYSICAL_FUTURE_DATE)
    with transaction.atomic():
        # Locked in id order: two admins marking overlapping lists cannot deadlock.
        locked = list(
            UserBadge.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True)
        )
        return UserBadge.objects.filter(pk__in=locked).update(physical_status=status, physical_status_on=on)


# --- the member's postal address (only for physical badges) ------------------------------------------

MESSAGE_ADDRESS_INCOMPLETE = "Vul straat en huisnummer, postcode en plaats in (of laat alles leeg)."


def postal_address_save(
    *, user: User, recipient: str, street: str, postcode: str, city: str, country: str
) -> PostalAddress | None:
    """Save the member's address; all required parts empty removes it (it is optional)."""
    values = {
        "recipient": recipient.strip(),
        "street": street.strip(),
        "postcode": postcode.strip().upper(),
        "city": city.strip(),
        "country": country.strip() or "Nederland",
    }
    if not (values["street"] or values["postcode"] or values["city"] or values["recipient"]):
        postal_address_delete(user=user)
        return None
    if not (values["street"] and values["postcode"] and values["city"]):
        raise ChallengeError(MESSAGE_ADDRESS_INCOMPLETE)
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        address, _ = PostalAddress.objects.update_or_create(user=user, defaults=values)
        return address


def postal_address_delete(*, user: User) -> None:
    PostalAddress.objects.filter(user=user).delete()


def challenge_stop(*, user: User, user_challenge_id: int) -> None:
    """Delete the member's challenge with its dips and badges; photo files go after the commit."""
    with transaction.atomic():
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id, user=user, is_active=True).first()
        if card is None:
            if UserChallenge.objects.filter(pk=user_challenge_id).exclude(user=user).exists():
                raise ChallengePermissionError(MESSAGE_NO_PERMISSION)
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        card.delete()
