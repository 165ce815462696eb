"""What the organiser reads for a member nothing was stamped for is chosen by the card's refusal code, not by
the card's Dutch sentence (matched once with `startswith("Op ")`): a copy edit of the card's refusals changes
nothing here."""

import datetime

import pytest
from django.utils import timezone

from apps.attendance.services import attendance_save
from apps.challenges.services import dip_rules
from apps.core.formatting import dutch_date
from tests.factories import (
    AdminFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    UserChallengeFactory,
    UserFactory,
)
from tests.support.refusals import reword_refusals

pytestmark = pytest.mark.django_db


def _participant(event, name, *, card_started=None, **card):
    member = UserFactory(full_name=name)
    EventParticipantFactory(event=event, user=member)
    card = UserChallengeFactory(user=member, started_at=card_started, **card) if card_started else None
    return member, card


def test_each_refusal_of_the_card_is_told_by_its_code_whatever_its_sentence(settings, monkeypatch):
    settings.DIP_DAILY_LIMIT_ENABLED = True
    now = timezone.now()
    # More than a day ago, within the 48 hours of signing off: the card's daily limit names that day.
    swim = EventFactory(title="Zondagduik", event_date=now - datetime.timedelta(hours=30))
    day = timezone.localdate(swim.event_date)
    long_ago = now - datetime.timedelta(days=5)
    without, _ = _participant(swim, "Kees Zonderkaart")
    taken, card = _participant(swim, "Dina Dagvol", card_started=long_ago)
    DipFactory(user_challenge=card, number=1, dip_date=day)
    full, card = _participant(swim, "Vera Vol", card_started=long_ago, challenge__target_dips=1)
    DipFactory(user_challenge=card, number=1, dip_date=day - datetime.timedelta(days=2))
    later, _ = _participant(swim, "Lars Later", card_started=now)
    monkeypatch.setattr(dip_rules, "MESSAGE_DAILY_LIMIT_THAT_DAY", "Die dag ({date}) heeft al een plons.")
    reword_refusals(monkeypatch)

    result = attendance_save(
        event_id=swim.pk, organiser=AdminFactory(), present_user_ids=[without.pk, taken.pk, full.pk, later.pk]
    )

    assert result.stamped == []
    assert sorted(result.refusals) == sorted(
        [
            "Kees Zonderkaart heeft geen actieve challenge: er is niets afgetekend.",
            f"Dina Dagvol heeft op {dutch_date(day)} al een plons op de kaart: er is niets extra afgetekend.",
            "De challenge van Vera Vol is al vol of voltooid: er is niets afgetekend.",
            "De challenge van Lars Later begon na dit event: er is niets afgetekend.",
        ]
    )
