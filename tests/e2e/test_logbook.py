"""Mijn logboek in real Chromium: a dip with details, undoing it, the statistics page, leaving."""

import datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge
from apps.core.page_cache import MEMBER, pages_changed
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import DEFAULT_PASSWORD, UserFactory

DESKTOP = {"width": 1280, "height": 900}


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_register_a_dip_with_details_then_undo_it(page):
    member = UserFactory()
    starter = Challenge.objects.get(target_dips=5)
    card = UserChallenge.objects.create(user=member, challenge=starter, challenge_type=starter.category)
    Dip.objects.create(user=member, user_challenge=card, number=1, dip_date=timezone.localdate(), spot="Pier")
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")

    page.get_by_text("Details (optioneel)").click()
    expect(page.get_by_text("Zwem nooit alleen")).to_be_visible()
    page.get_by_label("Watertemperatuur (°C)").fill("4,5")
    page.get_by_label("Minuten").fill("2")
    page.get_by_label("Seconden").fill("30")
    page.get_by_label("Plek").fill("Strand Scheveningen")
    page.get_by_label("Notitie").fill("Heerlijk fris")
    screenshot(page, "logbook-details-filled")
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("4,5 °C · 2:30 · Strand Scheveningen").wait_for()
    dip = Dip.objects.get(user=member, number=2)
    assert (dip.water_temperature, dip.duration_seconds, dip.spot, dip.note) == (
        Decimal("4.5"),
        150,
        "Strand Scheveningen",
        "Heerlijk fris",
    )

    # A mis-tap: take it back.
    page.get_by_role("button", name="Ongedaan maken: Plons 2", exact=False).click()
    dialog = page.get_by_role("dialog", name="Plons ongedaan maken?")
    dialog.get_by_role("button", name="Ongedaan maken").click()
    page.get_by_text("Plons ongedaan gemaakt.").first.wait_for()
    assert page.get_by_text("4,5 °C · 2:30 · Strand Scheveningen").count() == 0
    assert list(Dip.objects.filter(user=member).values_list("number", flat=True)) == [1]
    expect(page.get_by_text("Nog 4 plonsen te gaan!")).to_be_visible()
    assert page.js_errors == []


def test_undoing_the_completing_dip_reopens_the_card(page):
    member = UserFactory()
    starter = Challenge.objects.get(target_dips=5)
    card = UserChallenge.objects.create(user=member, challenge=starter, challenge_type=starter.category)
    Dip.objects.bulk_create(
        [Dip(user=member, user_challenge=card, number=n, dip_date=timezone.localdate()) for n in range(1, 5)]
    )
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_role("heading", name="Challenge Voltooid!").wait_for()
    page.get_by_role("button", name="Ongedaan maken: Plons 5", exact=False).click()
    page.get_by_role("dialog", name="Plons ongedaan maken?").get_by_role("button", name="Ongedaan maken").click()
    page.get_by_role("button", name="Plons registreren").wait_for()
    card.refresh_from_db()
    assert card.completed_at is None and not UserBadge.objects.filter(user_challenge=card).exists()


def test_edit_the_details_of_an_earlier_dip(page):
    member = UserFactory()
    starter = Challenge.objects.get(target_dips=5)
    card = UserChallenge.objects.create(user=member, challenge=starter, challenge_type=starter.category)
    Dip.objects.create(user=member, user_challenge=card, number=1, dip_date=timezone.localdate())
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Details aanpassen: Plons 1", exact=False).click()
    dialog = page.get_by_role("dialog", name="Plons 1 aanpassen")
    dialog.get_by_label("Watertemperatuur (°C)").fill("40")
    dialog.get_by_role("button", name="Opslaan").click()
    dialog.get_by_text("tussen −2 en 35 °C").wait_for()
    dialog.get_by_label("Watertemperatuur (°C)").fill("7")
    dialog.get_by_label("Plek").fill("Kralingse Plas")
    screenshot(page, "logbook-edit-dialog")
    dialog.get_by_role("button", name="Opslaan").click()
    page.get_by_text("7,0 °C · Kralingse Plas").wait_for()
    assert Dip.objects.get(user=member).spot == "Kralingse Plas"


def test_statistics_page_on_a_phone_and_a_desktop(page):
    member = UserFactory()
    sign_in(page, member)
    page.goto(page.base_url + "/statistieken")
    expect(page.get_by_text("Nog geen plonsen in je logboek.")).to_be_visible()
    screenshot(page, "logbook-statistics-empty")

    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(category="waterdieren"), challenge_type="waterdieren"
    )
    today = timezone.localdate()
    Dip.objects.bulk_create(
        [
            Dip(
                user=member,
                user_challenge=card,
                number=n,
                dip_date=today - datetime.timedelta(days=4 * n),
                water_temperature=Decimal(str(4 + n % 5)),
                duration_seconds=60 + n,
                spot="Pier",
            )
            for n in range(1, 40)
        ]
    )
    with transaction.atomic():  # written around the dip services, so this test says what changed
        pages_changed(MEMBER, user_ids=[member.pk])
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("link", name="Mijn statistieken").click()
    page.wait_for_url("**/statistieken")
    expect(page.get_by_role("heading", name="Mijn statistieken")).to_be_visible()
    expect(page.get_by_role("img", name="Plonsen per week, laatste 26 weken")).to_be_visible()
    expect(page.get_by_role("img", name="Jaarkalender van je plonsdagen")).to_be_visible()
    expect(page.get_by_text("Je koudste plons")).to_be_visible()
    assert no_sideways_scroll(page)
    screenshot(page, "logbook-statistics-phone")
    page.set_viewport_size(DESKTOP)
    assert no_sideways_scroll(page)
    screenshot(page, "logbook-statistics-desktop")
    assert page.js_errors == []


def test_delete_my_account(page):
    member = UserFactory(email="weg@example.nl")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("link", name="Ik", exact=True).click()
    page.wait_for_url("**/account")
    page.get_by_label("Je wachtwoord").fill("niet-goed")
    page.get_by_role("button", name="Account verwijderen").click()
    page.get_by_text("Dit wachtwoord klopt niet.").wait_for()
    assert User.objects.filter(pk=member.pk).exists()

    page.get_by_label("Je wachtwoord").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Account verwijderen").click()
    page.get_by_text("Je account en al je gegevens zijn verwijderd.").wait_for()
    assert not User.objects.filter(pk=member.pk).exists()
    page.goto(page.base_url + "/dashboard")
    page.wait_for_url("**/auth?next=/dashboard")
