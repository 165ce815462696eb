"""Whether a dip may count, and on which moment: the tap's time as far as the phone's clock is trusted
(`dip_moment`), the refusals of a card and of a day (`card_refusal`, `free_refusal`), and `dip_precheck`, those
refusals read without a lock before the photo is uploaded. dips.py applies them under the card's lock."""

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from apps.accounts.models import User
from apps.core.formatting import dutch_date

from ..models import ClubChallengeEntry, Dip, UserChallenge
from ..refusals import DipRefusal
from .errors import ChallengeError

MESSAGE_COMPLETED = "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."
MESSAGE_MAXIMUM = "Maximum van {target} plonsen bereikt!"
MESSAGE_DAILY_LIMIT = "Je hebt vandaag al een plons geregistreerd. Morgen mag je weer!"
MESSAGE_DAILY_LIMIT_THAT_DAY = "Op {date} heb je al een plons geregistreerd. Er telt één plons per dag."
MESSAGE_NO_ACTIVE = "Je hebt geen actieve challenge."
MESSAGE_TAP_BEFORE_START = "Deze plons is getikt voordat je challenge begon. Hij is niet geteld."

# A dip tapped without signal counts on the moment of the tap when it arrives within this time.
TAP_TIME_MAX_AGE = datetime.timedelta(hours=72)
# A phone's clock may run this far behind the server's: a tap that little before the card's start counts at
# the start; earlier it cannot have been made on this card.
TAP_CLOCK_SKEW = datetime.timedelta(minutes=10)


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
            raise ChallengeError(MESSAGE_TAP_BEFORE_START, code=DipRefusal.BEFORE_CARD_START)
        return min(card_started_at, now)
    return tapped_at


def card_refusal(
    card: UserChallenge, *, count: int, today: datetime.date, server_today: datetime.date | None = None
) -> ChallengeError | None:
    """Why this card takes no dip on the day `today` (the refusal, not yet raised), or None. `server_today` is
    the real day, when `today` is the day of a tap sent later: the daily limit holds per calendar day of the
    dip (dip_date), so taps claimed on earlier days can each take only a day that has no dip yet."""
    if card.is_completed:
        return ChallengeError(MESSAGE_COMPLETED, code=DipRefusal.CARD_DONE)
    if count >= card.challenge.target_dips:
        return ChallengeError(MESSAGE_MAXIMUM.format(target=card.challenge.target_dips), code=DipRefusal.CARD_FULL)
    if settings.DIP_DAILY_LIMIT_ENABLED and card.dips.filter(dip_date=today).exists():
        return _day_taken(today=today, server_today=server_today)
    return None


def club_challenge_running_for(*, user_id: int, day: datetime.date) -> bool:
    """Whether the member joined a club challenge whose period holds `day`: then a dip counts without a card."""
    return ClubChallengeEntry.objects.filter(
        user_id=user_id, club_challenge__starts_on__lte=day, club_challenge__ends_on__gte=day
    ).exists()


def free_refusal(*, user_id: int, today: datetime.date, server_today: datetime.date) -> ChallengeError | None:
    """The daily limit for a dip without a card: one dip per day, counted over all the member's dips."""
    if settings.DIP_DAILY_LIMIT_ENABLED and Dip.objects.filter(user_id=user_id, dip_date=today).exists():
        return _day_taken(today=today, server_today=server_today)
    return None


def _day_taken(*, today: datetime.date, server_today: datetime.date | None) -> ChallengeError:
    if server_today is None or today == server_today:
        return ChallengeError(MESSAGE_DAILY_LIMIT, code=DipRefusal.DAY_TAKEN)
    return ChallengeError(MESSAGE_DAILY_LIMIT_THAT_DAY.format(date=dutch_date(today)), code=DipRefusal.DAY_TAKEN)


@dataclass(frozen=True)
class DipPrecheck:
    """What dip_register would say before the photo is read: has_card False means refuse at once. "Card" in
    the wide sense: a stamp card, or a club challenge running today that takes a dip without a card."""

    has_card: bool
    refusal: ChallengeError | None


def dip_precheck(*, user: User, now: datetime.datetime | None = None) -> DipPrecheck:
    """The cheap refusals of dip_register, read without a lock, so that a dip that cannot count never
    costs a photo upload or decode. dip_register checks it all again under the card's lock.

    With a card that is full or done, a resend of a dip already stored (same request id) still gets
    its earlier answer from dip_register: hence the refusal is returned, not raised.
    """
    now = now or timezone.now()
    today = timezone.localdate(now)
    card = UserChallenge.objects.select_related("challenge").filter(user=user, is_active=True).first()
    refusal = (
        card_refusal(card, count=card.dips.count(), today=today)
        if card is not None
        else ChallengeError(MESSAGE_NO_ACTIVE, code=DipRefusal.NO_CARD)
    )
    if refusal is None:
        return DipPrecheck(has_card=True, refusal=None)
    card_done = card is not None and refusal.code != DipRefusal.DAY_TAKEN
    if (card is None or card_done) and club_challenge_running_for(user_id=user.pk, day=today):
        return DipPrecheck(has_card=True, refusal=free_refusal(user_id=user.pk, today=today, server_today=today))
    return DipPrecheck(has_card=card is not None, refusal=refusal)
