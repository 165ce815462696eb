"""Conditions per dip: parsing with Dutch messages, storing with the dip, the database's own guard."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from apps.challenges.card_payloads import spot_suggestions_for
from apps.challenges.conditions import (
    MESSAGE_DURATION,
    MESSAGE_NOTE_TOO_LONG,
    MESSAGE_SPOT_TOO_LONG,
    MESSAGE_TEMPERATURE,
    ConditionsError,
    DipConditions,
    conditions_display,
    conditions_parse,
)
from apps.challenges.models import Challenge, Dip
from apps.challenges.services.dips import dip_register
from tests.factories import DipFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("4,5", Decimal("4.5")), ("4.5", Decimal("4.5")), ("-2", Decimal("-2")), ("−1,5", Decimal("-1.5")), ("35", 35)],
)
def test_temperature_accepts_the_dutch_comma_and_the_whole_range(raw, expected):
    assert conditions_parse({"water_temperature": raw}).water_temperature == Decimal(expected)


@pytest.mark.parametrize("raw", ["-2,1", "35,1", "4,55", "warm", "NaN", "Infinity", "1e3"])
def test_temperature_outside_the_range_or_unreadable_is_refused(raw):
    with pytest.raises(ConditionsError) as caught:
        conditions_parse({"water_temperature": raw})
    assert caught.value.errors == {"water_temperature": MESSAGE_TEMPERATURE}


@pytest.mark.parametrize(("raw", "seconds"), [("150", 150), ("2:30", 150), ("0:10", 10), ("60:00", 3600)])
def test_duration_in_seconds_or_minutes_and_seconds(raw, seconds):
    assert conditions_parse({"duration_seconds": raw}).duration_seconds == seconds


@pytest.mark.parametrize("raw", ["9", "0:09", "60:01", "3601", "2:75", "twee", "-5"])
def test_duration_outside_0_10_to_60_00_is_refused(raw):
    with pytest.raises(ConditionsError) as caught:
        conditions_parse({"duration_seconds": raw})
    assert caught.value.errors == {"duration_seconds": MESSAGE_DURATION}


def test_every_wrong_field_gets_its_own_message():
    with pytest.raises(ConditionsError) as caught:
        conditions_parse({"water_temperature": "99", "duration_seconds": "5", "spot": "x" * 81, "note": "n" * 281})
    assert caught.value.errors == {
        "water_temperature": MESSAGE_TEMPERATURE,
        "duration_seconds": MESSAGE_DURATION,
        "spot": MESSAGE_SPOT_TOO_LONG,
        "note": MESSAGE_NOTE_TOO_LONG,
    }


def test_empty_fields_mean_not_logged_and_spaces_are_tidied():
    parsed = conditions_parse({"water_temperature": " ", "duration_seconds": "", "spot": "  Strand   Scheveningen "})
    assert parsed == DipConditions(spot="Strand Scheveningen")
    assert conditions_parse({}) == DipConditions()


def test_the_line_shows_only_what_was_logged():
    line = conditions_display(water_temperature=Decimal("4.5"), duration_seconds=150, spot="Strand Scheveningen")
    assert line == "4,5 °C · 2:30 · Strand Scheveningen"
    assert conditions_display(water_temperature=None, duration_seconds=75, spot="") == "1:15"


def test_a_dip_is_stored_with_its_conditions(member):
    UserChallengeFactory(user=member, challenge=Challenge.objects.get(target_dips=5))
    conditions = DipConditions(water_temperature=Decimal("4.5"), duration_seconds=150, spot="Pier", note="Fris!")
    outcome = dip_register(user=member, conditions=conditions)
    dip = Dip.objects.get(pk=outcome.dip.pk)
    assert (dip.water_temperature, dip.duration_seconds, dip.spot, dip.note) == (Decimal("4.5"), 150, "Pier", "Fris!")


def test_wrong_conditions_made_in_code_store_nothing(member):
    UserChallengeFactory(user=member, challenge=Challenge.objects.get(target_dips=5))
    with pytest.raises(ConditionsError):
        dip_register(user=member, conditions=DipConditions(duration_seconds=4000))
    assert not Dip.objects.exists()


@pytest.mark.parametrize(("field", "value"), [("water_temperature", Decimal("-5")), ("duration_seconds", 5)])
def test_the_database_refuses_out_of_range_conditions_itself(member, field, value):
    card = UserChallengeFactory(user=member)
    with pytest.raises(IntegrityError), transaction.atomic():
        DipFactory(user_challenge=card, **{field: value})


def test_spot_suggestions_are_the_members_own_spots_latest_first(member, other_member):
    card = UserChallengeFactory(user=member)
    for number, spot in enumerate(["Pier", "Strand", "", "Pier"], start=1):
        DipFactory(user_challenge=card, number=number, spot=spot)
    DipFactory(user_challenge=UserChallengeFactory(user=other_member), number=1, spot="Geheim meer")
    assert spot_suggestions_for(member.pk) == ["Pier", "Strand"]
