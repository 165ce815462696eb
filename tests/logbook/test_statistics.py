"""Mijn statistieken: the numbers, the week rhythm, the charts, the empty state and the query budget."""

import datetime
import re
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.challenges.models import Dip, UserChallenge
from apps.core.formatting import dutch_date
from apps.logbook.charts import CALENDAR_LEFT, CALENDAR_TOP, CELL, GAP, statistics_charts
from apps.logbook.selectors import season_start, statistics_for
from tests.factories import ChallengeFactory, DipFactory, UserBadgeFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 25)  # a Wednesday


def dips_on(user, days, **fields):
    # An archived card each time: a member has one active card, but statistics span all of them.
    card = UserChallengeFactory(user=user, challenge=ChallengeFactory(target_dips=1000), is_active=False)
    Dip.objects.bulk_create(
        [Dip(user=user, user_challenge=card, number=n, dip_date=day, **fields) for n, day in enumerate(days, start=1)]
    )
    return card


def test_the_season_runs_from_1_september():
    assert season_start(datetime.date(2026, 8, 31)) == datetime.date(2025, 9, 1)
    assert season_start(datetime.date(2026, 9, 1)) == datetime.date(2026, 9, 1)


def test_totals_over_all_challenges(member, other_member):
    card = dips_on(member, [datetime.date(2026, 8, 30), datetime.date(2026, 9, 2)], duration_seconds=150)
    dips_on(member, [datetime.date(2026, 11, 20)])
    dips_on(other_member, [datetime.date(2026, 11, 20)] * 3, duration_seconds=600)
    card.completed_at = timezone.now()
    card.save()
    UserBadgeFactory(user_challenge=card)
    stats = statistics_for(member, today=TODAY)
    assert (stats.total_dips, stats.season_dips, stats.total_seconds) == (3, 2, 300)
    assert (stats.badges_earned, stats.challenges_completed) == (1, 1)


def test_coldest_dip_and_the_average_per_month(member):
    card = UserChallengeFactory(user=member, is_active=False)
    for number, (day, temperature, spot) in enumerate(
        [
            (datetime.date(2026, 10, 3), "8.0", "Pier"),
            (datetime.date(2026, 10, 9), "6.0", "Meer"),
            (datetime.date(2026, 11, 2), "3.5", "Strand"),
            (datetime.date(2026, 11, 3), None, ""),
        ],
        start=1,
    ):
        DipFactory(
            user_challenge=card,
            number=number,
            dip_date=day,
            water_temperature=Decimal(temperature) if temperature else None,
            spot=spot,
        )
    stats = statistics_for(member, today=TODAY)
    assert (stats.coldest.water_temperature, stats.coldest.dip_date, stats.coldest.spot) == (
        Decimal("3.5"),
        datetime.date(2026, 11, 2),
        "Strand",
    )
    assert [(m.month.month, m.average, m.dips) for m in stats.month_temperatures] == [
        (11, Decimal("3.5"), 1),
        (10, Decimal("7.0"), 2),
    ]


def test_rhythm_counts_weeks_not_days(member):
    # Weeks of 26 Oct, 2 Nov, 9 Nov (twice), then none on 16 Nov, then this week (23 Nov).
    days = [datetime.date(2026, 10, 27), datetime.date(2026, 11, 2), datetime.date(2026, 11, 9)]
    days += [datetime.date(2026, 11, 10), datetime.date(2026, 11, 24)]
    dips_on(member, days)
    stats = statistics_for(member, today=TODAY)
    assert stats.best_week_run == 3
    assert stats.current_week_run == 1


def test_a_week_without_a_dip_yet_does_not_break_the_current_run(member):
    dips_on(member, [datetime.date(2026, 11, 10), datetime.date(2026, 11, 17)])
    assert statistics_for(member, today=TODAY).current_week_run == 2
    assert statistics_for(member, today=TODAY + datetime.timedelta(days=7)).current_week_run == 0


def test_dips_per_week_over_26_weeks_ends_with_this_week(member):
    dips_on(member, [datetime.date(2026, 11, 23), datetime.date(2026, 11, 25), datetime.date(2026, 5, 1)])
    weeks = statistics_for(member, today=TODAY).recent_weeks
    assert len(weeks) == 26 and weeks[-1].start == datetime.date(2026, 11, 23) and weeks[-1].dips == 2
    assert sum(week.dips for week in weeks) == 2  # 1 May 2026 is more than 26 weeks ago


def test_charts_are_accessible_svg_with_their_numbers_as_a_table(member_client, member):
    dips_on(member, [timezone.localdate()], water_temperature=Decimal("4.5"))
    html = member_client.get("/statistieken").content.decode()
    assert html.count('role="img"') == 3
    for title in ("Plonsen per week, laatste 26 weken", "Watertemperatuur dit seizoen", "Jaarkalender"):
        assert re.search(r'<title id="[^"]+">' + re.escape(title), html), title
    assert "<desc id=" in html and 'class="visually-hidden"' in html
    assert "4,5 °C" in html


def test_the_calendar_covers_twelve_months_up_to_today(member):
    dips_on(member, [datetime.date(2026, 11, 2), datetime.date(2026, 11, 3), datetime.date(2025, 12, 31)])
    calendar = statistics_charts(statistics_for(member, today=TODAY)).calendar
    assert calendar.rows[0] == ("december 2025", 1) and calendar.rows[-1] == ("november 2026", 2)
    assert len(calendar.days) == 31 + 31 + 28 + 31 + 30 + 31 + 30 + 31 + 31 + 30 + 31 + TODAY.day
    assert calendar.days[-1][:2] == (CALENDAR_LEFT + (TODAY.day - 1) * (CELL + GAP), CALENDAR_TOP + 11 * (CELL + GAP))
    assert sum(dipped for _x, _y, dipped in calendar.days) == 3


def squares_day_by_day(dip_days: set[datetime.date], today: datetime.date) -> str:
    """The calendar's squares as its picture is meant: walked a date at a time."""
    squares, month = [], datetime.date(today.year - 1, today.month, 1)
    for row in range(12):
        month = (month + datetime.timedelta(days=32)).replace(day=1)
        day = month
        while day.month == month.month and day <= today:
            x, y = CALENDAR_LEFT + (day.day - 1) * (CELL + GAP), CALENDAR_TOP + row * (CELL + GAP)
            dip = " logbook-day--dip" if day in dip_days else ""
            squares.append(f'<rect class="logbook-day{dip}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" rx="2"/>')
            day += datetime.timedelta(days=1)
    return "".join(squares)


@pytest.mark.parametrize(
    "today", [TODAY, datetime.date(2028, 2, 29), datetime.date(2027, 1, 1), datetime.date(2026, 12, 31)]
)
def test_the_calendar_squares_are_the_days_of_the_last_twelve_months(member, today):
    days = [today - datetime.timedelta(days=n * n) for n in range(20)] + [today + datetime.timedelta(days=1)]
    dips_on(member, days)
    calendar = statistics_charts(statistics_for(member, today=today)).calendar
    assert calendar.day_cells == squares_day_by_day(set(days), today)
    first_shown = datetime.date(today.year - (today.month < 12), today.month % 12 + 1, 1)
    in_view = sum(1 for day in days if first_shown <= day <= today)
    assert calendar.day_cells.count("logbook-day--dip") == sum(count for _month, count in calendar.rows) == in_view


def test_the_empty_state_invites_the_first_dip(member_client):
    response = member_client.get("/statistieken")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Nog geen plonsen in je logboek." in html and 'href="/dashboard"' in html
    assert 'role="img"' not in html


def test_only_my_own_dips_count(member_client, other_member):
    dips_on(other_member, [timezone.localdate()], spot="Geheim meer", water_temperature=Decimal("1.0"))
    html = member_client.get("/statistieken").content.decode()
    assert "Geheim meer" not in html and "Nog geen plonsen in je logboek." in html


def test_anonymous_visitors_go_to_auth(client):
    response = client.get("/statistieken")
    assert response.status_code == 302 and response["Location"] == "/auth?next=/statistieken"


def test_the_dashboard_header_links_to_statistics_and_account(member_client):
    html = member_client.get("/dashboard").content.decode()
    assert 'href="/statistieken"' in html and 'href="/account"' in html


@pytest.mark.parametrize("size", [0, 100, 1000])
def test_statistics_query_budget(member_client, member, size, django_assert_max_num_queries):
    if size:
        today = timezone.localdate()
        days = [today - datetime.timedelta(days=n // 2) for n in range(size)]
        dips_on(member, days, water_temperature=Decimal("5.5"), duration_seconds=120, spot="Pier")
        UserChallenge.objects.filter(user=member).update(completed_at=timezone.now())
    # Session, user, admin role, then her figures with her coldest dip in one read, her days, and the two of
    # "Samen met", whatever the history; the rest is the page cache's bookkeeping.
    with django_assert_max_num_queries(9):
        response = member_client.get("/statistieken")
    assert response.status_code == 200
    if size:
        assert f'<dd class="stat-value">{size}</dd>' in response.content.decode()


@pytest.mark.parametrize("size", [1, 1000])
def test_the_next_visit_the_same_day_reads_no_dips_whatever_the_history(
    member_client, member, size, django_assert_max_num_queries
):
    """Cached under the member scope (apps/core/page_cache.py): the history is counted once per change."""
    today = timezone.localdate()
    dips_on(member, [today - datetime.timedelta(days=n // 2) for n in range(size)], water_temperature=Decimal("5.5"))
    member_client.get("/statistieken")
    # Session, user, admin role: the access checks only.
    with django_assert_max_num_queries(3) as captured:
        response = member_client.get("/statistieken")
    assert f'<dd class="stat-value">{size}</dd>' in response.content.decode()
    assert not [query for query in captured.captured_queries if "challenges_dip" in query["sql"]]


def test_samen_met_counts_the_days_with_each_clubmate_by_name_never_ranked(member_client, member):
    from apps.challenges.models import DipBuddy
    from tests.factories import DipFactory, UserChallengeFactory, UserFactory

    zoe, bas, nee = (
        UserFactory(full_name="Zoë Zee"),
        UserFactory(full_name="Bas Bos"),
        UserFactory(full_name="Nee Nooit"),
    )
    card = UserChallengeFactory(user=member)
    today = timezone.localdate()
    mine = [
        DipFactory(user_challenge=card, number=n + 1, dip_date=today - datetime.timedelta(days=n)) for n in range(3)
    ]
    zoe_card = UserChallengeFactory(user=zoe)
    zoe_dip = DipFactory(user_challenge=zoe_card, number=1, dip_date=today - datetime.timedelta(days=5))
    DipBuddy.objects.bulk_create(
        [
            DipBuddy(dip=mine[0], buddy=zoe),
            DipBuddy(dip=mine[1], buddy=zoe),
            DipBuddy(dip=mine[2], buddy=bas),
            DipBuddy(dip=mine[2], buddy=nee, status="declined", decided_at=timezone.now()),
            # Zoë named the member on another day, and the member put it on their card.
            DipBuddy(dip=zoe_dip, buddy=member, status="accepted", decided_at=timezone.now()),
        ]
    )
    html = member_client.get("/statistieken").content.decode()
    section = html[html.index("Samen met") :]
    assert section.index("Bas Bos") < section.index("Zoë Zee")  # by name, though Zoë has more days
    assert '<span>Bas Bos</span> <span class="muted">1 dag</span>' in section
    assert '<span>Zoë Zee</span> <span class="muted">3 dagen</span>' in section
    assert "Nee Nooit" not in section


def test_the_cached_page_follows_her_dip_its_edit_and_its_undo(member_client, member):
    from django.core.cache import caches

    from apps.challenges.conditions import DipConditions
    from apps.challenges.services.cards import challenge_start
    from apps.challenges.services.dip_changes import dip_details_update, dip_undo
    from apps.challenges.services.dips import dip_register

    caches["pages"].clear()
    challenge_start(user=member, challenge_id=ChallengeFactory(target_dips=50).pk)
    dip_register(user=member, now=timezone.now() - datetime.timedelta(days=1))

    def page() -> tuple[str, bool]:
        html = member_client.get("/statistieken").content.decode()
        return re.findall(r'<dd class="stat-value">([^<]*)</dd>', html)[0], "Je koudste plons: <strong>4,5" in html

    assert page() == ("1", False)
    dip = dip_register(user=member).dip
    assert page() == ("2", False)
    dip_details_update(user=member, dip_id=dip.pk, conditions=DipConditions(water_temperature=Decimal("4.5")))
    assert page() == ("2", True)
    dip_undo(user=member, dip_id=dip.pk)
    assert page() == ("1", False)


def test_the_weeks_are_captioned_with_their_number_and_monday(member):
    dips_on(member, [datetime.date(2026, 1, 2), TODAY], water_temperature=Decimal("4.0"))
    stats = statistics_for(member, today=TODAY)
    charts = statistics_charts(stats)
    for chart, weeks in ((charts.weeks, stats.recent_weeks), (charts.season, stats.season_weeks)):
        assert [point.caption for point in chart.points] == [
            f"week {week.start.isocalendar().week} ({dutch_date(week.start)})" for week in weeks
        ]
    assert charts.weeks.points[-1].caption == "week 48 (23 november 2026)"
