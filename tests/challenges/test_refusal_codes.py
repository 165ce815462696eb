"""Code that reacts to a card's refusal reads its code, never its Dutch sentence: a full card still lets a dip
count for a running club challenge, the precheck tells a full card from a taken day, and badge art speaks of
images. Each holds when every refusal is reworded (a copy edit)."""

import datetime
import io
import itertools

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image

from apps.challenges.badge_art import MESSAGE_BADGE_FORMAT, badge_art_process
from apps.challenges.photos import PhotoError
from apps.challenges.refusals import DipRefusal
from apps.challenges.services import dip_rules
from apps.challenges.services.dip_rules import dip_precheck
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    DipFactory,
    UserChallengeFactory,
    UserFactory,
)
from tests.support.refusals import REWORDED, reword_refusals

pytestmark = pytest.mark.django_db


class SaidDifferentlyEachTime(str):
    """A sentence that names something that changes (as "Maximum van {target} plonsen" names the target):
    two renderings of it are not the same text."""

    said = itertools.count()

    def format(self, *args, **kwargs) -> str:
        return f"{super().format(*args, **kwargs)} ({next(self.said)})"


@pytest.fixture
def full_card_in_a_club_challenge():
    user = UserFactory()
    card = UserChallengeFactory(user=user, challenge__target_dips=1)
    DipFactory(user_challenge=card, number=1, dip_date=timezone.localdate() - datetime.timedelta(days=2))
    ClubChallengeEntryFactory(user=user, club_challenge=ClubChallengeFactory())
    return user, card


def test_a_full_card_lets_the_dip_count_for_the_club_challenge_whatever_the_sentence(
    full_card_in_a_club_challenge, monkeypatch
):
    user, card = full_card_in_a_club_challenge
    monkeypatch.setattr(dip_rules, "MESSAGE_MAXIMUM", SaidDifferentlyEachTime(dip_rules.MESSAGE_MAXIMUM))
    reword_refusals(monkeypatch)
    outcome = dip_register(user=user)
    assert outcome.user_challenge is None and outcome.dip.user_challenge_id is None
    assert card.dips.count() == 1


def test_a_full_card_naming_its_card_is_refused_with_its_code(full_card_in_a_club_challenge, monkeypatch):
    user, card = full_card_in_a_club_challenge
    reword_refusals(monkeypatch)
    with pytest.raises(ChallengeError) as refused:
        dip_register(user=user, user_challenge_id=card.pk)
    assert refused.value.code == DipRefusal.CARD_FULL
    assert refused.value.message.startswith(REWORDED)


def test_the_precheck_tells_a_full_card_from_a_taken_day_by_the_code(
    full_card_in_a_club_challenge, monkeypatch, settings
):
    settings.DIP_DAILY_LIMIT_ENABLED = True
    user, card = full_card_in_a_club_challenge
    reword_refusals(monkeypatch)
    assert dip_precheck(user=user).refusal is None  # full: the club challenge takes the dip
    dip_register(user=user)
    refusal = dip_precheck(user=user).refusal
    assert refusal is not None and refusal.code == DipRefusal.DAY_TAKEN


def test_badge_art_speaks_of_images_by_the_photo_refusals_code_whatever_its_sentence(monkeypatch):
    gif = io.BytesIO()
    Image.new("RGB", (64, 64), (10, 20, 30)).save(gif, format="GIF")
    reword_refusals(monkeypatch)
    with pytest.raises(PhotoError) as refused:
        badge_art_process(SimpleUploadedFile("badge.gif", gif.getvalue(), content_type="image/gif"))
    assert refused.value.code == DipRefusal.PHOTO_NOT_AN_IMAGE
    assert refused.value.message == REWORDED + MESSAGE_BADGE_FORMAT
