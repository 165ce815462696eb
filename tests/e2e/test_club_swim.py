"""Issue 27 in real Chromium: an admin makes a weekly series on /admin, two members sign up on the plan list, the
first swim starts, the admin ticks "Was erbij", and both cards show the stamped dip "Afgetekend door …".
axe checks the event's own pages on the way (their paths hold an id, so test_accessibility.py cannot)."""

import datetime

import pytest
from django.utils import timezone

from apps.challenges.models import Challenge, Dip
from apps.events.models import Event
from tests.e2e.conftest import sign_in
from tests.e2e.test_accessibility import assert_no_violations
from tests.factories import AdminFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def page_for(page, user):
    context = page.context.browser.new_context(
        viewport=page.viewport_size, locale="nl-NL", timezone_id="Europe/Amsterdam"
    )
    other = context.new_page()
    other.set_default_timeout(10_000)
    other.base_url = page.base_url
    sign_in(other, user)
    return other


def member_with_card(name: str):
    member = UserFactory(full_name=name)
    UserChallengeFactory(
        user=member,
        challenge=Challenge.objects.get(category=Challenge.Category.WATERDIEREN),
        started_at=timezone.now() - datetime.timedelta(days=7),
    )
    return member


def test_a_weekly_series_two_members_and_attendance_that_stamps_both_cards(page):
    admin = AdminFactory(full_name="Anna Admin")
    marit, otto = member_with_card("Marit Zwemmer"), member_with_card("Otto Ander")
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)

    # The admin makes a series of four weeks from /admin.
    sign_in(page, admin)
    page.goto(page.base_url + "/admin")
    page.get_by_role("link", name="Nieuw event").last.click()
    assert_no_violations(page, "Nieuw event")
    page.get_by_label("Titel").fill("Zondagduik")
    page.get_by_label("Datum").fill(tomorrow.isoformat())
    page.get_by_label("Tijd").fill("11:00")
    page.get_by_label("Verzamelpunt / plek").fill("Strandpaviljoen 12")
    page.get_by_label("Maximum deelnemers").fill("20")
    page.get_by_label("Herhaal elke week tot").fill((tomorrow + datetime.timedelta(weeks=3)).isoformat())
    page.get_by_role("button", name="Event aanmaken").click()
    page.get_by_text("De reeks is aangemaakt: 4 events").wait_for()
    first = Event.objects.order_by("event_date").first()
    assert Event.objects.filter(series=first.series).count() == 4

    # Two members sign up for the first one on the plan list, and see each other's names.
    for member in (marit, otto):
        member_page = page_for(page, member)
        member_page.goto(member_page.base_url + "/samen")
        member_page.get_by_role("button", name="Aanmelden").first.click()
        member_page.get_by_text("Je bent aangemeld voor dit event!").first.wait_for()
        member_page.context.close()
    own_page = page_for(page, otto)
    own_page.goto(own_page.base_url + f"/events/{first.pk}")
    own_page.get_by_role("listitem").filter(has_text="Marit Zwemmer").wait_for()
    assert_no_violations(own_page, "the event's own page")
    own_page.context.close()

    # The organiser sees both names, edits the page's form once, and after the start signs them off.
    page.goto(page.base_url + f"/admin/events/{first.pk}/bewerken")
    assert_no_violations(page, "Event bewerken")
    Event.objects.filter(pk=first.pk).update(event_date=timezone.now() - datetime.timedelta(hours=1))
    page.goto(page.base_url + f"/admin/events/{first.pk}")
    page.get_by_role("checkbox", name="Marit Zwemmer").check()
    page.get_by_role("checkbox", name="Otto Ander").check()
    assert_no_violations(page, "Was erbij")
    page.get_by_role("button", name="Aanwezigheid opslaan").click()
    page.get_by_text("Afgetekend op de kaart: Marit Zwemmer, Otto Ander.").wait_for()
    page.get_by_role("button", name="Aanwezigheid opslaan").click()  # saving twice stamps once
    page.get_by_text("De aanwezigheid is opgeslagen.").wait_for()
    assert Dip.objects.filter(user__in=[marit, otto]).count() == 2

    # Both cards show the stamped dip, signed off by the organiser.
    for member in (marit, otto):
        card_page = page_for(page, member)
        card_page.goto(card_page.base_url + "/challenge")
        card_page.get_by_text("Afgetekend door Anna Admin").wait_for()
        card_page.context.close()
