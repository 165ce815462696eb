"""The dashboard's reads compiled once (apps/core/prepared.py): the same cards, club challenges, club badges and
badge summary as the querysets they replace, and the page after each write that changes them shows the change
(the page and its sections cached: the sections' keys move with what they show)."""

import datetime

import pytest
from django.core.cache import caches
from django.db.models import Count, Exists, OuterRef, Subquery
from django.test import Client
from django.utils import timezone

from apps.challenges.models import Challenge, ClubChallenge, ClubChallengeEntry, Dip, UserBadge, UserChallenge
from apps.challenges.selectors import club_badges_for, club_challenges_for, dashboard_for
from apps.challenges.services import club_challenges as club
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.club_challenges import ClubChallengeSpec
from apps.challenges.services.club_progress import member_days
from apps.challenges.services.dip_changes import dip_undo
from apps.challenges.services.dips import dip_register
from tests.factories import ClubChallengeEntryFactory, ClubChallengeFactory, DipFactory, UserFactory

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def _waterdieren_card(member, *, dips: int) -> UserChallenge:
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    challenge_start(user=member, challenge_id=waterdieren.pk)
    start = timezone.now() - datetime.timedelta(days=dips + 1)
    for day in range(dips):
        dip_register(user=member, now=start + datetime.timedelta(days=day))
    return UserChallenge.objects.get(user=member, is_active=True)


def _club_challenges_by_the_orm(user, today):
    mine = ClubChallengeEntry.objects.filter(club_challenge=OuterRef("pk"), user_id=user.pk)
    challenges = list(
        ClubChallenge.objects.filter(ends_on__gte=today)
        .annotate(participants=Count("entries"), joined=Exists(mine), completed=Subquery(mine.values("completed_at")))
        .order_by("starts_on", "ends_on", "pk")
    )
    days = member_days(user_id=user.pk, challenges=[c for c in challenges if c.joined and not c.is_club_goal])
    goal_totals = {
        c.pk: Dip.objects.filter(
            user__club_entries__club_challenge=c, dip_date__gte=c.starts_on, dip_date__lte=c.ends_on
        ).count()
        for c in challenges
        if c.is_club_goal
    }
    return [
        (c.pk, c.name, c.participants, c.joined, c.completed, days.get(c.pk, 0), goal_totals.get(c.pk, 0))
        for c in challenges
    ]


def test_the_prepared_club_challenges_equal_the_orms_for_each_member_and_day():
    anna, bram = UserFactory(), UserFactory()
    today = timezone.localdate()
    days = ClubChallengeFactory(name="Tien dagen", starts_on=today - 3 * DAY, kind=ClubChallenge.Kind.DAYS)
    goal = ClubChallengeFactory(name="Samen", starts_on=today - 2 * DAY, kind=ClubChallenge.Kind.CLUB_GOAL)
    ClubChallengeFactory(name="Straks", starts_on=today + 5 * DAY)
    ClubChallengeFactory(name="Voorbij", starts_on=today - 20 * DAY, ends_on=today - DAY)
    for member in (anna, bram):
        club.club_challenge_join(user=member, club_challenge_id=goal.pk)
    club.club_challenge_join(user=anna, club_challenge_id=days.pk)
    for back in (0, 1, 1, 4):  # each on a card of its own, archived: a member has one card under way
        DipFactory(user_challenge__user=anna, user_challenge__is_active=False, dip_date=today - back * DAY)
    DipFactory(user_challenge__user=bram, user_challenge__is_active=False, dip_date=today)

    for member in (anna, bram):
        for day in (today, today + 6 * DAY, today + 30 * DAY):  # the day is the query's parameter, not frozen in
            cards = club_challenges_for(member, today=day)
            assert [
                (card.challenge.pk, card.challenge.name, card.participants, card.joined, card.completed_at)
                + (card.days_done, card.total)
                for card in cards
            ] == _club_challenges_by_the_orm(member, day)
            assert all(card.today == day for card in cards)
    anna_cards = {card.challenge.name: card for card in club_challenges_for(anna)}
    # A day counts once, a day before the start not; a club goal counts every dip of those taking part.
    assert anna_cards["Tien dagen"].days_done == 2 and anna_cards["Samen"].total == 4
    assert "Voorbij" not in anna_cards and anna_cards["Straks"].is_upcoming


def test_the_prepared_cards_and_club_badges_are_whole_instances():
    member = UserFactory()
    card = _waterdieren_card(member, dips=3)
    dashboard = dashboard_for(member)
    [active] = dashboard.active_challenges
    assert (active.pk, active.challenge, active.dip_total, active.is_completed) == (card.pk, card.challenge, 3, False)
    assert active.challenge.name == card.challenge.name and active.user_id == member.pk
    assert dashboard.can_start is False and dashboard.has_dipped

    entry = ClubChallengeEntryFactory(user=member, completed_at=timezone.now())
    ClubChallengeEntryFactory(user=member)  # taking part, not completed: no badge
    [badge] = club_badges_for(member)
    assert badge == entry and badge.club_challenge == entry.club_challenge
    assert badge.club_challenge.name == entry.club_challenge.name and badge.completed_at == entry.completed_at


def test_the_badge_summary_counts_awards_and_club_badges():
    member = UserFactory()
    assert dashboard_for(member).badge_summary == "0:None:0"
    _waterdieren_card(member, dips=5)  # the first badge at 5 dips
    award = UserBadge.objects.get(user=member)
    assert dashboard_for(member).badge_summary == f"1:{award.pk}:0"
    ClubChallengeEntryFactory(user=member, completed_at=timezone.now())
    dashboard = dashboard_for(member)
    assert dashboard.badge_summary == f"1:{award.pk}:1" and dashboard.badge_count == 2


# --- the page after each write: the sections of what changed are new -----------------------------------------


def _dashboard(client) -> str:
    response = client.get("/dashboard")
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def member_client():
    caches["pages"].clear()
    member = UserFactory(full_name="Marit Zwemmer")
    client = Client()
    client.force_login(member)
    return member, client


def test_a_dip_and_its_undo_move_her_card_on_the_cached_dashboard(member_client):
    member, client = member_client
    _waterdieren_card(member, dips=2)
    assert "2 van 100 plonsen gedaan" in _dashboard(client)
    dip = dip_register(user=member).dip
    assert "3 van 100 plonsen gedaan" in _dashboard(client)
    dip_undo(user=member, dip_id=dip.pk)
    assert "2 van 100 plonsen gedaan" in _dashboard(client)


def test_a_badge_shows_on_the_cached_dashboard(member_client):
    member, client = member_client
    _waterdieren_card(member, dips=4)
    assert "Je verdiende badges (0)" in _dashboard(client)
    dip_register(user=member)  # the fifth: the first badge
    assert "Je verdiende badges (1)" in _dashboard(client)


def test_a_club_challenge_joined_dipped_and_completed_shows_on_the_cached_dashboard(member_client):
    member, client = member_client
    assert "Clubchallenges" not in _dashboard(client)
    today = timezone.localdate()
    challenge = club.club_challenge_create(
        spec=ClubChallengeSpec(
            name="Drie dagen",
            description="",
            starts_on=today,
            ends_on=today + 2 * DAY,
            kind=ClubChallenge.Kind.DAYS,
            target=1,
        )
    )
    page = _dashboard(client)
    assert "Drie dagen" in page and "Doe mee" in page
    club.club_challenge_join(user=member, club_challenge_id=challenge.pk)
    page = _dashboard(client)
    assert "0 van 1</strong> dag gedaan" in page and "Plons registreren" in page
    dip_register(user=member)  # a dip without a card counts for the club challenge and completes it
    page = _dashboard(client)
    assert "1 van 1</strong> dag gedaan" in page and "Voltooid op" in page
    assert '<p class="badge-name">Drie dagen</p>' in page  # her club badge
