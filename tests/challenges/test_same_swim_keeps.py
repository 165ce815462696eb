"""A confirmation of the same swim (apps/challenges/services/same_swim.py) adds what the dip lacked and
replaces nothing it has: not its photo (nor that photo's sharing), not its water temperature, time in the
water, spot or note. A photo it does not take leaves no file behind."""

import datetime
from decimal import Decimal

import pytest
from django.core.files.storage import storages
from django.utils import timezone

from apps.challenges.conditions import DipConditions
from apps.challenges.models import Dip
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.dips import dip_register
from tests.factories import ChallengeFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db

FIRST = DipConditions(water_temperature=Decimal("4.5"), duration_seconds=120, spot="Sloterplas", note="Helder")
SECOND = DipConditions(water_temperature=Decimal("9.0"), duration_seconds=600, spot="Het IJ", note="Anders")


@pytest.fixture(autouse=True, params=[False, True], ids=["no-daily-limit", "daily-limit"])
def rule(request, settings):
    settings.DIP_SAME_SWIM_HOURS = 3
    settings.DIP_DAILY_LIMIT_ENABLED = request.param


def _member():
    member = UserFactory()
    UserChallengeFactory(
        user=member,
        challenge=ChallengeFactory(target_dips=25),
        started_at=timezone.now() - datetime.timedelta(days=5),
    )
    return member


def _at(hour: int) -> datetime.datetime:
    day = timezone.localdate() - datetime.timedelta(days=1)
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour)))


def _files(member) -> set[str]:
    return set(storages["photos"].listdir(str(member.pk))[1])


def test_a_confirmation_replaces_no_photo_and_no_condition_the_dip_has():
    member = _member()
    first = dip_register(
        user=member, now=_at(9), conditions=FIRST, photo=ProcessedPhoto(full=b"eerste", thumbnail=b"eerste-klein")
    ).dip
    files = _files(member)
    second = dip_register(
        user=member,
        now=_at(10),
        conditions=SECOND,
        photo=ProcessedPhoto(full=b"tweede", thumbnail=b"tweede-klein"),
        share_photo=True,
    )
    assert second.confirmed and second.dip.pk == first.pk

    dip = Dip.objects.get(pk=first.pk)
    assert (dip.water_temperature, dip.duration_seconds, dip.spot, dip.note) == (
        Decimal("4.5"),
        120,
        "Sloterplas",
        "Helder",
    )
    assert (dip.photo.name, dip.thumbnail.name, dip.share_photo) == (first.photo.name, first.thumbnail.name, False)
    assert storages["photos"].open(dip.photo.name).read() == b"eerste"
    assert _files(member) == files  # the photo it did not take is not left behind


def test_a_confirmation_fills_only_what_the_dip_left_empty():
    member = _member()
    first = dip_register(
        user=member, now=_at(9), conditions=DipConditions(water_temperature=Decimal("4.5"), spot="Sloterplas")
    ).dip
    dip_register(
        user=member,
        now=_at(10),
        conditions=SECOND,
        photo=ProcessedPhoto(full=b"tweede", thumbnail=b"tweede-klein"),
        share_photo=True,
    )

    dip = Dip.objects.get(pk=first.pk)
    assert (dip.water_temperature, dip.spot) == (Decimal("4.5"), "Sloterplas")  # kept
    assert (dip.duration_seconds, dip.note) == (600, "Anders")  # added
    assert dip.share_photo is True and storages["photos"].open(dip.photo.name).read() == b"tweede"
