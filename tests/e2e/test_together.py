"""Nooit alleen, in real Chromium: two members, one proposes a plonsafspraak, the other goes along, both dip
with each other as buddy, each puts the other's dip on their own card: both cards count."""

import datetime

from django.utils import timezone
from playwright.sync_api import expect

from apps.challenges.models import Challenge, Dip, DipBuddy
from apps.challenges.services.cards import challenge_start
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import UserFactory


def _as(page, user) -> None:
    page.context.clear_cookies()
    sign_in(page, user)


def _dip_with(page, buddy_name: str, shot: str) -> None:
    page.goto(page.base_url + "/challenge")
    briefing = page.get_by_role("heading", name="Veilig het seizoen in")
    expect(briefing).to_be_visible()
    page.get_by_role("button", name="Ik heb het gelezen").click()
    expect(briefing).to_have_count(0)
    # After the afspraak the card offers the one who went along: the details are open, the name ticked.
    expect(page.get_by_text(f'{buddy_name} staat aangevinkt bij "Met wie?"', exact=False)).to_be_visible()
    buddies = page.get_by_role("group", name="Met wie?")
    expect(buddies.get_by_text("ging mee met je afspraak")).to_be_visible()
    expect(buddies.get_by_label(buddy_name)).to_be_checked()
    screenshot(page, shot)
    page.get_by_role("button", name="Plons registreren").click()
    warm_up = page.get_by_role("region", name="Opwarmen")
    expect(warm_up).to_contain_text("Neem een warme drank.")


def test_two_members_plan_dip_tag_and_both_cards_count(page, transactional_db):
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    anna, bert = UserFactory(full_name="Anna Dijk"), UserFactory(full_name="Bert Bos")
    for member in (anna, bert):
        challenge_start(user=member, challenge_id=waterdieren.pk)
    page.set_viewport_size({"width": 390, "height": 844})

    # Anna proposes: "Over een uur Sloterplas, wie gaat mee?"
    _as(page, anna)
    page.goto(page.base_url + "/samen")
    when = timezone.localtime() + datetime.timedelta(hours=1)
    page.get_by_label("Wanneer", exact=True).fill(when.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Waar", exact=True).fill("Sloterplas")
    page.get_by_role("button", name="Plonsafspraak voorstellen").click()
    expect(page.get_by_text("Je plonsafspraak staat erop. Wie gaat er mee?")).to_be_visible()
    expect(page.get_by_role("article", name="Sloterplas")).to_contain_text("Gaan mee: Anna Dijk")

    # Bert goes along, from his dashboard.
    _as(page, bert)
    page.goto(page.base_url + "/dashboard")
    meetup = page.locator("#samen").get_by_role("article", name="Sloterplas")
    meetup.get_by_role("button", name="Ik ga mee").click()
    expect(page.locator("#samen").get_by_text("Je gaat mee!")).to_be_visible()
    expect(page.locator("#samen").get_by_role("article", name="Sloterplas")).to_contain_text(
        "Gaan mee: Anna Dijk, Bert Bos"
    )
    screenshot(page, "together_dashboard_joined")

    # Both dip, each naming the other (those of the afspraak come first under "Met wie?").
    _dip_with(page, "Anna Dijk", "together_met_wie")
    _as(page, anna)
    _dip_with(page, "Bert Bos", "together_anna_dips")

    # Each puts the other's dip on their own card.
    for member, other in ((anna, "Bert Bos"), (bert, "Anna Dijk")):
        _as(page, member)
        page.goto(page.base_url + "/dashboard")
        request = page.locator("#buddies")
        expect(request).to_contain_text(f"{other} plonste met jou op")
        screenshot(page, f"together_request_{member.pk}")
        request.get_by_role("button", name="Zet op mijn kaart").click()
        expect(page.locator("#buddies")).to_contain_text("De plons staat op je kaart.")

    for member in (anna, bert):
        assert Dip.objects.filter(user=member, user_challenge__is_active=True).count() == 2
    assert DipBuddy.objects.filter(status=DipBuddy.Status.ACCEPTED).count() == 2
    page.goto(page.base_url + "/challenge")
    expect(page.get_by_text("2 / 100")).to_be_visible()
