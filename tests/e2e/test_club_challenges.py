"""Dated club challenges in real Chromium: a member without a stamp card joins a December challenge and
registers a dip that counts; a completion plays the celebration; an admin makes a challenge on /admin."""

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.challenges.models import ClubChallenge, ClubChallengeEntry, Dip
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.test_accessibility import assert_no_violations
from tests.factories import AdminFactory, ClubChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def december(**kwargs) -> ClubChallenge:
    """A December challenge around today, so the test holds on any day of the year."""
    today = timezone.localdate()
    values = {
        "name": "Dip a Day December",
        "description": "Elke dag een plons, de hele maand.",
        "kind": ClubChallenge.Kind.DAYS,
        "target": 20,
        "starts_on": today - datetime.timedelta(days=3),
        "ends_on": today + datetime.timedelta(days=27),
    }
    return ClubChallengeFactory(**{**values, **kwargs})


def test_a_member_without_a_card_joins_a_december_challenge_and_registers_a_dip_that_counts(page):
    challenge = december()
    member = UserFactory(full_name="Kees Koudwater")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    card = page.get_by_role("article", name="Dip a Day December")
    expect(card).to_contain_text("20 dagen")
    expect(page.get_by_role("button", name="Plons registreren")).to_have_count(0)

    card.get_by_role("button", name="Doe mee").click()
    expect(page.get_by_text("Je doet mee met Dip a Day December!")).to_be_visible()
    expect(card).to_contain_text("0 van 20 dagen gedaan · nog 28 dagen")

    page.get_by_role("button", name="Plons registreren").click()
    expect(page.get_by_text("Plons toegevoegd!")).to_be_visible()
    expect(page.get_by_role("article", name="Dip a Day December")).to_contain_text("1 van 20 dagen gedaan")
    assert_no_violations(page, "dashboard with a joined club challenge")
    screenshot(page, "club-challenge-joined")

    dip = Dip.objects.get(user=member)
    assert dip.user_challenge_id is None and dip.dip_date == timezone.localdate()
    assert ClubChallengeEntry.objects.get(user=member, club_challenge=challenge).completed_at is None


def test_completing_a_club_challenge_plays_the_celebration_and_shows_the_badge(page):
    december(name="Eerste vorst", kind=ClubChallenge.Kind.DAYS, target=1)
    member = UserFactory()
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("article", name="Eerste vorst").get_by_role("button", name="Doe mee").click()
    page.get_by_role("button", name="Plons registreren").click()
    expect(page.get_by_test_id("celebration")).to_be_visible()
    expect(page.get_by_text("Gefeliciteerd!")).to_be_visible()
    expect(page.get_by_text("Clubchallenge voltooid: Eerste vorst!")).to_be_visible()
    expect(page.get_by_role("heading", name="Je verdiende badges (1)")).to_be_visible()
    expect(page.get_by_test_id("celebration")).to_have_count(0, timeout=6000)


def test_an_admin_makes_a_club_goal_on_admin_and_a_member_sees_it(page):
    admin = AdminFactory(full_name="Anna Admin")
    sign_in(page, admin)
    page.goto(page.base_url + "/admin")
    page.get_by_role("link", name="Clubchallenges beheren").click()
    page.get_by_label("Naam").fill("Samen naar 500")
    page.get_by_label("Van", exact=True).fill("2026-12-01")
    page.get_by_label("Tot en met").fill("2026-12-31")
    page.get_by_label("Clubdoel").check()
    page.get_by_label("N (dagen of plonsen)").fill("500")
    page.get_by_role("button", name="Clubchallenge aanmaken").click()
    expect(page.get_by_text("Clubchallenge Samen naar 500 aangemaakt.")).to_be_visible()
    expect(page.get_by_role("article").filter(has_text="Samen naar 500")).to_contain_text("Clubdoel: 500 plonsen samen")
    assert ClubChallenge.objects.get(name="Samen naar 500").target == 500
