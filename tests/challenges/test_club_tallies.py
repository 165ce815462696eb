"""The club's tallies (apps/challenges/models/tallies.py): the database keeps them true through every way a dip
or an earned badge comes, goes or moves, also ways no service sees, and under parallel taps. /admin reads them
instead of counting the club's history."""

import datetime

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from apps.accounts.removal import user_delete
from apps.challenges.models import (
    BadgeTally,
    Challenge,
    Dip,
    DipWeekTally,
    MemberWeekTally,
    PhysicalStatus,
    UserBadge,
    UserChallenge,
)
from apps.challenges.services.cards import challenge_start, challenge_stop
from apps.challenges.services.dip_changes import dip_delete, dip_undo
from apps.challenges.services.dips import dip_register
from apps.challenges.tally_triggers import tallies_recount
from apps.shipping.services import physical_badges_mark
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import AdminFactory, DipFactory, UserBadgeFactory, UserChallengeFactory, UserFactory


def monday(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


def counted_from_the_rows() -> dict:
    """The tallies as they must be, counted from every dip and award in Python."""
    weeks: dict = {}
    for user_id, day in Dip.objects.values_list("user_id", "dip_date"):
        week = weeks.setdefault(monday(day), {"dips": 0, "members": set()})
        week["dips"] += 1
        week["members"].add(user_id)
    awards = UserBadge.objects.values("badge_id", "physical_status").annotate(n=Count("pk"))
    return {
        "weeks": {week: (row["dips"], len(row["members"])) for week, row in weeks.items()},
        "badges": {(row["badge_id"], row["physical_status"]): row["n"] for row in awards},
    }


def kept() -> dict:
    return {
        "weeks": {
            row.week: (row.dips, row.members) for row in DipWeekTally.objects.all() if (row.dips, row.members) != (0, 0)
        },
        "badges": {(row.badge_id, row.physical_status): row.awards for row in BadgeTally.objects.all() if row.awards},
    }


def assert_tallies_true() -> None:
    assert kept() == counted_from_the_rows()
    assert not MemberWeekTally.objects.filter(dips__lte=0).exists()  # a member's week leaves with its last dip


@pytest.fixture
def waterdieren(db):
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


@pytest.mark.django_db
def test_every_way_a_dip_or_badge_comes_goes_or_moves_is_counted(waterdieren):
    anna, bram, admin = UserFactory(), UserFactory(), AdminFactory()
    challenge_start(user=anna, challenge_id=waterdieren.pk)
    challenge_start(user=bram, challenge_id=waterdieren.pk)
    for _ in range(5):  # the fifth earns a badge
        dip_register(user=anna)
    dip_register(user=bram)
    assert_tallies_true()
    assert UserBadge.objects.filter(user=anna).exists()
    this_week = DipWeekTally.objects.get(week=monday(timezone.localdate()))
    assert (this_week.dips, this_week.members) == (6, 2)

    dip_undo(user=bram, dip_id=Dip.objects.get(user=bram).pk)  # bram's only dip of the week: one member less
    assert_tallies_true()
    dip_delete(dip_id=Dip.objects.filter(user=anna).order_by("number").first().pk)  # renumbers, takes the badge
    assert_tallies_true()

    # Written past the services: a factory, a bulk insert, an UPDATE that moves dips to another week and member.
    card = UserChallengeFactory(user=bram, is_active=False)
    DipFactory(user_challenge=card, dip_date=datetime.date(2026, 1, 7))
    Dip.objects.bulk_create(
        [Dip(user=bram, user_challenge=card, number=10 + n, dip_date=datetime.date(2026, 1, 5 + n)) for n in range(7)]
    )
    assert_tallies_true()
    Dip.objects.filter(user=bram, dip_date=datetime.date(2026, 1, 11)).update(dip_date=datetime.date(2026, 1, 12))
    Dip.objects.filter(user=bram, dip_date=datetime.date(2026, 1, 5)).update(user=anna)
    assert_tallies_true()

    # Badges: made, sent, back to waiting, and gone with their card.
    award = UserBadgeFactory(user_challenge=card)
    physical_badges_mark(award_ids=[award.pk], status=PhysicalStatus.SENT, on=datetime.date(2026, 2, 1))
    assert_tallies_true()
    physical_badges_mark(award_ids=[award.pk], status=PhysicalStatus.TO_SEND)
    assert_tallies_true()
    challenge_stop(user=anna, user_challenge_id=UserChallenge.objects.get(user=anna, is_active=True).pk)
    assert_tallies_true()

    # A member's deletion cascades through their cards, dips and badges.
    user_delete(actor=admin, user_id=bram.pk)
    assert_tallies_true()
    assert not MemberWeekTally.objects.filter(user_id=bram.pk).exists()


@pytest.mark.django_db
def test_the_recount_fills_the_tallies_from_the_rows_whatever_they_held(waterdieren):
    challenge_start(user=UserFactory(), challenge_id=waterdieren.pk)
    DipFactory.create_batch(3)
    UserBadgeFactory()
    DipWeekTally.objects.update(dips=999)
    BadgeTally.objects.all().delete()
    tallies_recount(connection)
    assert_tallies_true()


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_twenty_members_dipping_at_once_are_all_counted(waterdieren):
    requires_postgresql()
    members = UserFactory.create_batch(20)
    for member in members:
        challenge_start(user=member, challenge_id=waterdieren.pk)

    results = run_concurrently(lambda i: dip_register(user=members[i]), times=20)

    assert not any(isinstance(result, Exception) for result in results), results
    this_week = DipWeekTally.objects.get(week=monday(timezone.localdate()))
    assert (this_week.dips, this_week.members) == (20, 20)
    assert_tallies_true()

    # And taken back at once: every tally back to nothing.
    dips = [Dip.objects.get(user=member).pk for member in members]
    results = run_concurrently(lambda i: dip_undo(user=members[i], dip_id=dips[i]), times=20)
    assert not any(isinstance(result, Exception) for result in results), results
    assert_tallies_true()
    assert DipWeekTally.objects.get(week=monday(timezone.localdate())).members == 0
