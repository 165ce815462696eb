"""Challenge rules. `dip_register` is the only way a dip is made."""

import datetime
import uuid
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.services import club_changed, member_pages_changed
from apps.core.page_cache import shared_version_bump

from .badge_art import badge_art_delete, badge_art_save
from .conditions import DipConditions
from .models import Badge, Challenge, Dip, PhysicalStatus, PostalAddress, UserBadge, UserChallenge, photo_storage
from .photos import ProcessedPhoto

# A mis-tap can be taken back for this long; after that a dip is part of the member's history.
UNDO_WINDOW_MINUTES = 10
UNDO_WINDOW = datetime.timedelta(minutes=UNDO_WINDOW_MINUTES)

MESSAGE_ALREADY_WATERDIEREN = "Je hebt al een actieve Waterdieren Stempelkaart!"
MESSAGE_ALREADY_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."
MESSAGE_CHALLENGE_UNAVAILABLE = "Deze challenge is niet beschikbaar."
MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."
MESSAGE_DIP_UNKNOWN = "Deze plons bestaat niet (meer)."
MESSAGE_CARD_UNKNOWN = "Deze challenge bestaat niet (meer)."

# Beyond any real place on a card (the challenge_target_range check allows at most 1000 dips): renumbering
# parks the dips here first, because the unique (card, number) constraint is checked row by row.
_RENUMBER_PARKING = 10_000
MESSAGE_COMPLETED_KEPT = (
    "Een voltooide challenge blijft bewaard, met je badges en foto's. Start gerust een nieuwe op je dashboard."
)
MESSAGE_UNDO_TOO_LATE = (
    f"Deze plons kan niet meer ongedaan worden gemaakt. Dat kan alleen bij je laatste plons, "
    f"tot {UNDO_WINDOW_MINUTES} minuten na het registreren."
)
MESSAGE_OTHER_CARD = "Deze plons hoort bij een challenge die niet meer actief is. Hij is niet geteld."

# A dip tapped without signal counts on the moment of the tap when it arrives within this time.
TAP_TIME_MAX_AGE = datetime.timedelta(hours=72)
# A phone's clock may run this far behind the server's: a tap that little before the card's start counts at
# the start; earlier it cannot have been made on this card.
TAP_CLOCK_SKEW = datetime.timedelta(minutes=10)
MESSAGE_TAP_BEFORE_START = "Deze plons is getikt voordat je challenge begon. Hij is niet geteld."
MESSAGE_DAILY_LIMIT_THAT_DAY = "Op {date} heb je al een plons geregistreerd. Er telt één plons per dag."


class ChallengeError(Exception):
    """A refused action; the message is Dutch and meant for the member."""


class ChallengePermissionError(ChallengeError):
    """The challenge is someone else's."""


class ChallengeCompletedError(ChallengeError):
    """Stopping a finished card: refused, the card is kept."""


class DipNotFoundError(ChallengeError):
    """No such dip of this member (someone else's dip is answered the same way)."""


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
        member_pages_changed(user_ids=[user.pk])
        club_changed()  # the active cards on /admin
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
    conditions: DipConditions | None = None,
    tapped_at: datetime.datetime | None = None,
    user_challenge_id: int | None = None,
    now: datetime.datetime | None = None,
) -> DipOutcome:
    """Register a dip on the member's active card, award a milestone badge, complete at the target.

    The photo is already checked and re-encoded (that is slow, so it happens before the lock). Its files
    are written first and removed again when the dip is refused, so nothing is left half-way.
    A `request_id` seen before on this card answers with that earlier dip instead of adding one.
    `conditions` (water temperature, time, spot, note) are optional; wrong ones raise ConditionsError
    before anything is written.
    A dip sent later from the phone (tapped without signal) brings `tapped_at`, the moment of the tap,
    and `user_challenge_id`, the card it was tapped on: see `dip_moment`, and another card refuses it.
    """
    now = now or timezone.now()
    conditions = conditions or DipConditions()
    conditions.check()
    names = _photo_save(user=user, photo=photo, now=now) if photo else ("", "")
    try:
        outcome = _dip_register_locked(
            user=user,
            photo_names=names,
            request_id=request_id,
            conditions=conditions,
            user_challenge_id=user_challenge_id,
            tapped_at=tapped_at,
            now=now,
        )
    except BaseException:
        _photo_delete(names)
        raise
    if outcome.replayed:
        _photo_delete(names)
    return outcome


def dip_moment(
    *, tapped_at: datetime.datetime | None, now: datetime.datetime, card_started_at: datetime.datetime | None = None
) -> datetime.datetime:
    """When a dip counts: the moment of the tap when it is in the past and at most 72 hours old, else now.

    The phone's clock is trusted only that far: a tap "from the future" or from long ago gets the server's time.
    A tap before the card started (`card_started_at`) is refused (ChallengeError), unless it is within
    TAP_CLOCK_SKEW of the start: then it counts at the start.
    """
    if tapped_at is None or not now - TAP_TIME_MAX_AGE <= tapped_at <= now:
        return now
    if card_started_at is not None and tapped_at < card_started_at:
        if tapped_at < card_started_at - TAP_CLOCK_SKEW:
            raise ChallengeError(MESSAGE_TAP_BEFORE_START)
        return min(card_started_at, now)
    return tapped_at


def _photo_delete(names: tuple[str, str]) -> None:
    for name in names:
        if name:
            photo_storage().delete(name)


def _dip_register_locked(
    *,
    user: User,
    photo_names: tuple[str, str],
    request_id: uuid.UUID | None,
    conditions: DipConditions,
    user_challenge_id: int | None,
    tapped_at: datetime.datetime | None,
    now: datetime.datetime,
) -> DipOutcome:
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(user=user, is_active=True)
            .first()
        )
        if card is None:
            raise ChallengeError(MESSAGE_NO_ACTIVE if user_challenge_id is None else MESSAGE_OTHER_CARD)
        if user_challenge_id is not None and card.pk != user_challenge_id:
            raise ChallengeError(MESSAGE_OTHER_CARD)
        earlier = card.dips.filter(request_id=request_id).first() if request_id else None
        if earlier is not None:
            return _replay(card, earlier)
        # Judged under the card's lock, against its start: a claimed tap time cannot reach days before it.
        moment = dip_moment(tapped_at=tapped_at, now=now, card_started_at=card.started_at)
        target = card.challenge.target_dips
        count = card.dips.count()
        today = timezone.localdate(moment)
        refusal = _card_refusal(card, count=count, today=today, server_today=timezone.localdate(now))
        if refusal is not None:
            raise ChallengeError(refusal)

        number = count + 1
        dip = Dip.objects.create(
            user=user,
            user_challenge=card,
            number=number,
            dip_date=today,
            photo=photo_names[0],
            thumbnail=photo_names[1],
            created_at=moment,
            request_id=request_id,
            water_temperature=conditions.water_temperature,
            duration_seconds=conditions.duration_seconds,
            spot=conditions.spot,
            note=conditions.note,
        )
        user_dip_count_refresh(user_id=user.pk)
        badge = Badge.objects.filter(challenge_id=card.challenge_id, milestone_dips=number).first()
        award = None
        if badge is not None:
            # A physical badge posted before its dip was undone kept its award: the member has it already.
            award = UserBadge.objects.filter(user_challenge=card, badge=badge).first() or UserBadge.objects.create(
                user=user, badge=badge, user_challenge=card, earned_at=moment
            )
        completed = number >= target
        if completed:
            card.completed_at = moment
            card.save(update_fields=["completed_at"])
        return DipOutcome(dip=dip, dip_count=number, badge=badge, award=award, completed=completed, user_challenge=card)


def _card_refusal(
    card: UserChallenge, *, count: int, today: datetime.date, server_today: datetime.date | None = None
) -> str | None:
    """Why this card takes no dip on the day `today` (Dutch), or None. `server_today` is the real day, when
    `today` is the day of a tap sent later: the daily limit holds per calendar day of the dip (dip_date), so
    taps claimed on earlier days can each take only a day that has no dip yet."""
    if card.is_completed:
        return MESSAGE_COMPLETED
    if count >= card.challenge.target_dips:
        return MESSAGE_MAXIMUM.format(target=card.challenge.target_dips)
    if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
        if server_today is None or today == server_today:
            return MESSAGE_DAILY_LIMIT
        from .selectors import dutch_date  # the selectors import this module

        return MESSAGE_DAILY_LIMIT_THAT_DAY.format(date=dutch_date(today))
    return None


@dataclass(frozen=True)
class DipPrecheck:
    """What dip_register would say before the photo is read: has_card False means refuse at once."""

    has_card: bool
    refusal: str | None


def dip_precheck(*, user: User, now: datetime.datetime | None = None) -> DipPrecheck:
    """The cheap refusals of dip_register, read without a lock, so that a dip that cannot count never
    costs a photo upload or decode. dip_register checks it all again under the card's lock.

    With a card that is full or done, a resend of a dip already stored (same request id) still gets
    its earlier answer from dip_register: hence the refusal is returned, not raised.
    """
    card = UserChallenge.objects.select_related("challenge").filter(user=user, is_active=True).first()
    if card is None:
        return DipPrecheck(has_card=False, refusal=MESSAGE_NO_ACTIVE)
    today = timezone.localdate(now or timezone.now())
    return DipPrecheck(has_card=True, refusal=_card_refusal(card, count=card.dips.count(), today=today))


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
    catalogue_changed()
    return challenge


CATALOGUE = "catalogue"  # the shared version of the challenges and their badges (apps.core.page_cache)


def catalogue_changed() -> None:
    """Every member page that shows the catalogue or a challenge's badges is rendered anew."""
    shared_version_bump(CATALOGUE)


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
        catalogue_changed()


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
        changed = UserBadge.objects.filter(pk__in=locked).update(physical_status=status, physical_status_on=on)
        club_changed()  # the counts per status on /admin
        member_pages_changed(user_ids=UserBadge.objects.filter(pk__in=locked).values_list("user_id", flat=True))
        return changed


# --- the member's postal address (only for physical badges) ------------------------------------------

MESSAGE_ADDRESS_INCOMPLETE = "Vul straat en huisnummer, postcode en plaats in (of laat alles leeg)."
MESSAGE_ADDRESS_TOO_LONG = "{field} mag hoogstens {max} tekens lang zijn."


def postcode_normalise(postcode: str) -> str:
    """ "1234 ab" is "1234 AB". The forms normalise with it too, so their length check sees the stored value."""
    return postcode.strip().upper()


def postal_address_save(
    *, user: User, recipient: str, street: str, postcode: str, city: str, country: str
) -> PostalAddress | None:
    """Save the member's address; all required parts empty removes it (it is optional)."""
    values = {
        "recipient": recipient.strip(),
        "street": street.strip(),
        "postcode": postcode_normalise(postcode),
        "city": city.strip(),
        "country": country.strip() or "Nederland",
    }
    if not (values["street"] or values["postcode"] or values["city"] or values["recipient"]):
        postal_address_delete(user=user)
        return None
    if not (values["street"] and values["postcode"] and values["city"]):
        raise ChallengeError(MESSAGE_ADDRESS_INCOMPLETE)
    # Checked after normalising: upper() can make text longer ("ß" is "SS"), past what the form checked.
    for name, value in values.items():
        field = PostalAddress._meta.get_field(name)
        if len(value) > field.max_length:
            label = str(field.verbose_name).capitalize()  # "Postcode", "Straat en huisnummer"
            raise ChallengeError(MESSAGE_ADDRESS_TOO_LONG.format(field=label, max=field.max_length))
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        address, _ = PostalAddress.objects.update_or_create(user=user, defaults=values)
        return address


def postal_address_delete(*, user: User) -> None:
    PostalAddress.objects.filter(user=user).delete()


def challenge_stop(*, user: User, user_challenge_id: int) -> None:
    """Delete the member's challenge with its dips and badges; photo files go after the commit."""
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id, user=user, is_active=True).first()
        if card is None:
            if UserChallenge.objects.filter(pk=user_challenge_id).exclude(user=user).exists():
                raise ChallengePermissionError(MESSAGE_NO_PERMISSION)
            raise ChallengeError(MESSAGE_NO_ACTIVE)
        if card.is_completed:
            # A finished card is the member's trophy: stopping would delete its badges and photos.
            raise ChallengeCompletedError(MESSAGE_COMPLETED_KEPT)
        _card_delete(card)


def dip_delete(*, dip_id: int) -> UserChallenge:
    """Delete one dip and keep its card whole: the later dips close the gap, badges beyond the new count
    go, and a completed card below its target is open again. The photo files go after the commit (the
    post_delete signal of Dip). Returns the card as it is now. Raises ChallengeError when the dip is gone.
    """
    with transaction.atomic():
        found = Dip.objects.filter(pk=dip_id).values_list("user_challenge_id", "user_id").first()
        if found is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        card_id, user_id = found
        member_lock(user_id=user_id)
        # The same lock as dip_register: a dip registered meanwhile waits until the card is whole again.
        card = (
            UserChallenge.objects.select_for_update(of=("self",)).select_related("challenge").filter(pk=card_id).first()
        )
        # Read again under the lock: a parallel delete (of the dip, or of the whole account) may have won.
        dip = card.dips.filter(pk=dip_id).first() if card is not None else None
        if dip is None:
            raise ChallengeError(MESSAGE_DIP_UNKNOWN)
        dip.delete()
        user_dip_count_refresh(user_id=dip.user_id)
        _card_recount_after_dip_removal(card=card, removed_number=dip.number)
    return card


def member_lock(*, user_id: int) -> None:
    """Lock the member's row before their card or dips. Every service here takes the member first, then the
    card, in the order the account deletion takes them (the member's row, then the cascade through cards and
    dips): the two wait for each other instead of deadlocking. A member deleted meanwhile locks nothing, and
    the service finds no card."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()


def user_dip_count_refresh(*, user_id: int) -> None:
    """Keep `User.dip_count` true: EVERY service that adds or removes dips calls this after its change, in
    its own transaction (today dip_register, dip_delete, dip_undo, challenge_stop, user_challenge_delete).

    A recount, so a count gone wrong (dips written past the services) heals on the member's next change.
    The member's row is locked first: a parallel change waits here and counts after this one commits,
    seeing its dips (a recount inside one UPDATE would use a snapshot from before the wait)."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk", flat=True).first()
    club_changed()  # the club's dips, cards and badges on /admin
    User.objects.filter(pk=user_id).update(
        # Whatever changed the dips changed the member's dashboard and stamp card (member_pages_changed).
        pages_version=F("pages_version") + 1,
        dip_count=Coalesce(
            Subquery(
                Dip.objects.filter(user_id=user_id).order_by().values("user_id").annotate(n=Count("pk")).values("n")
            ),
            0,
        ),
    )


def _card_delete(card: UserChallenge) -> None:
    """A card goes with its dips (cascade), so they leave the member's count; call it under the card's lock."""
    card.delete()
    user_dip_count_refresh(user_id=card.user_id)


def _card_recount_after_dip_removal(*, card: UserChallenge, removed_number: int) -> tuple[int, ...]:
    """The card's rules once one of its dips is gone; call it under the card's row lock. Used by the admin's
    dip_delete and the member's dip_undo alike. Returns the ids of the badges taken back.

    The dips are numbered 1..count again, so the next dip_register (number = count + 1) cannot collide;
    a badge is kept only while the count still reaches its milestone, or once its physical badge went out;
    completion holds only at the target.
    """
    later = card.dips.filter(number__gt=removed_number)
    if later.exists():
        later.update(number=F("number") + _RENUMBER_PARKING)
        card.dips.filter(number__gt=_RENUMBER_PARKING).update(number=F("number") - _RENUMBER_PARKING - 1)
    count = card.dips.count()
    # A badge already posted or handed over stays (the member has it); taking it back would put it on the
    # to-send list again once a dip reaches its milestone.
    revoked_awards = UserBadge.objects.filter(
        user_challenge=card, badge__milestone_dips__gt=count, physical_status=PhysicalStatus.TO_SEND
    )
    revoked = tuple(revoked_awards.values_list("badge_id", flat=True))
    revoked_awards.delete()
    if card.completed_at is not None and count < card.challenge.target_dips:
        card.completed_at = None
        card.save(update_fields=["completed_at"])
    return revoked


def user_challenge_delete(*, user_challenge_id: int) -> None:
    """An admin removes a member's card with its dips and badges (challenge_stop without the owner check);
    the photo files go after the commit."""
    with transaction.atomic():
        user_id = UserChallenge.objects.filter(pk=user_challenge_id).values_list("user_id", flat=True).first()
        if user_id is not None:
            member_lock(user_id=user_id)
        card = UserChallenge.objects.select_for_update().filter(pk=user_challenge_id).first()
        if card is None:
            raise ChallengeError(MESSAGE_CARD_UNKNOWN)
        _card_delete(card)


def dip_details_update(
    *, user: User, dip_id: int, conditions: DipConditions, photo: ProcessedPhoto | None = None
) -> Dip:
    """Set the conditions of one of the member's own dips afterwards, and add or replace its photo.

    The conditions replace what was logged (an empty field clears it). A replaced photo's files are
    removed once the change is committed; the new files are removed again when the change fails.
    """
    conditions.check()
    names = _photo_save(user=user, photo=photo, now=timezone.now()) if photo else ("", "")
    try:
        with transaction.atomic():
            member_lock(user_id=user.pk)
            dip = Dip.objects.select_for_update().filter(pk=dip_id, user=user).first()
            if dip is None:
                raise DipNotFoundError(MESSAGE_DIP_UNKNOWN)
            dip.water_temperature = conditions.water_temperature
            dip.duration_seconds = conditions.duration_seconds
            dip.spot = conditions.spot
            dip.note = conditions.note
            fields = ["water_temperature", "duration_seconds", "spot", "note"]
            if photo:
                replaced = (dip.photo.name, dip.thumbnail.name)
                dip.photo, dip.thumbnail = names
                fields += ["photo", "thumbnail"]
                transaction.on_commit(lambda: _photo_delete(replaced))
            dip.save(update_fields=fields)
            member_pages_changed(user_ids=[user.pk])
    except BaseException:
        _photo_delete(names)
        raise
    return dip


@dataclass(frozen=True)
class UndoOutcome:
    dip_id: int
    dip_count: int
    user_challenge: UserChallenge
    revoked_badge_ids: tuple[int, ...]


def dip_undo(*, user: User, dip_id: int, now: datetime.datetime | None = None) -> UndoOutcome:
    """Take back a mis-tap: the member's latest dip on their active card, within UNDO_WINDOW.

    Under the card's lock, so a dip registered at the same moment cannot slip in between. The badge
    and the completion the dip brought are taken back in the same transaction; its photo files go
    after the commit (the post_delete signal of Dip).
    """
    now = now or timezone.now()
    with transaction.atomic():
        member_lock(user_id=user.pk)
        card_id = Dip.objects.filter(pk=dip_id, user=user).values_list("user_challenge_id", flat=True).first()
        if card_id is None:
            raise DipNotFoundError(MESSAGE_DIP_UNKNOWN)
        card = (
            UserChallenge.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(pk=card_id, user=user)
            .first()
        )
        latest = card.dips.order_by("-number").first() if card is not None else None
        if latest is None or latest.pk != dip_id:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        if not card.is_active or latest.created_at < now - UNDO_WINDOW:
            raise ChallengeError(MESSAGE_UNDO_TOO_LATE)
        latest.delete()
        revoked = _card_recount_after_dip_removal(card=card, removed_number=latest.number)
        user_dip_count_refresh(user_id=user.pk)
        return UndoOutcome(dip_id=dip_id, dip_count=card.dips.count(), user_challenge=card, revoked_badge_ids=revoked)
