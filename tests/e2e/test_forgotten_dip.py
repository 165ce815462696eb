"""Issue 34 §6: "Vergeten te registreren?" on /challenge adds a dip for yesterday or the day before, with the same
rules as a dip of today (one swim, one stamp included)."""

import datetime
import re

from django.utils import timezone
from playwright.sync_api import expect

from apps.challenges.models import Challenge, Dip, UserChallenge
from tests.e2e.conftest import sign_in
from tests.factories import UserFactory


def _member_with_card():
    member = UserFactory(full_name="Vera Vergeet")
    UserChallenge.objects.create(
        user=member,
        challenge=Challenge.objects.get(category=Challenge.Category.WATERDIEREN),
        challenge_type="waterdieren",
        started_at=timezone.now() - datetime.timedelta(days=5),
    )
    return member


def _day(page, label_start: str):
    return page.get_by_role("radio", name=re.compile(f"^{label_start} "))


def _register_days_ago(page, label_start: str) -> None:
    page.get_by_text("Vergeten te registreren?").click()
    _day(page, label_start).check()
    page.get_by_role("button", name="Plons registreren").click()


def test_a_forgotten_dip_of_yesterday_and_the_day_before_counts_on_that_day(page, settings):
    settings.DIP_SAME_SWIM_HOURS = 3
    member = _member_with_card()
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")

    _register_days_ago(page, "Gisteren")
    page.get_by_text("Plons toegevoegd!").first.wait_for()
    expect(page.get_by_text("Nog 99 plonsen te gaan!")).to_be_visible()
    today = timezone.localdate()
    assert list(Dip.objects.filter(user=member).values_list("dip_date", flat=True)) == [
        today - datetime.timedelta(days=1)
    ]

    _day(page, "Eergisteren").check()
    page.get_by_role("button", name="Plons registreren").click()
    expect(page.get_by_text("Nog 98 plonsen te gaan!")).to_be_visible()
    assert sorted(Dip.objects.filter(user=member).values_list("dip_date", flat=True)) == [
        today - datetime.timedelta(days=2),
        today - datetime.timedelta(days=1),
    ]

    # The same rules: yesterday's swim tapped again is the same swim, confirmed, not a second stamp.
    _day(page, "Gisteren").check()
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Die plons stond al op je kaart: er komt geen tweede stempel bij.").first.wait_for()
    expect(page.get_by_text("Nog 98 plonsen te gaan!")).to_be_visible()
    assert Dip.objects.filter(user=member).count() == 2
    assert page.js_errors == []
