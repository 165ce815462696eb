"""Replies under a plonsafspraak in real Chromium at 390 px: a member opens the afspraak from /samen, writes "Ik ben
5 minuten later", and sees her reply and the confirmation where she is looking (after the jump to #reacties)."""

import re

from playwright.sync_api import expect

from apps.together.replies import reply_post
from tests.e2e.conftest import screenshot, sign_in
from tests.e2e.test_accessibility import assert_no_violations
from tests.factories import EventFactory, MeetupFactory, UserFactory


def test_a_member_replies_under_an_afspraak_on_a_phone(page, transactional_db):
    anna, bert = UserFactory(full_name="Anna Dijk"), UserFactory(full_name="Bert Bos")
    MeetupFactory(proposer=anna, place="Sloterplas", note="Wie neemt thee mee?")
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, bert)

    page.goto(page.base_url + "/samen")
    row = page.get_by_role("article", name=re.compile("Sloterplas"))
    row.get_by_role("link", name=re.compile("Sloterplas")).click()  # the row's title: the afspraak's own page
    expect(page.get_by_role("heading", name="Plonsafspraak", exact=True)).to_be_visible()
    replies = page.get_by_role("region", name="Reacties")
    expect(replies).to_contain_text("Nog geen reacties.")

    replies.get_by_label("Jouw reactie").fill("Ik ben 5 minuten later <b>echt</b>")
    replies.get_by_role("button", name="Plaats reactie").click()

    confirmation = page.get_by_text("Je reactie staat erbij.")
    expect(confirmation).to_be_visible()
    expect(confirmation).to_be_in_viewport()
    expect(page.get_by_role("region", name="Reacties (1)")).to_contain_text("Bert Bos")
    expect(page.get_by_text("Ik ben 5 minuten later <b>echt</b>")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "replies_meetup_390")
    assert_no_violations(page, "/samen/<id> with a reply")


def test_the_replies_under_an_event_fit_a_small_phone(page, transactional_db):
    anna, bert = UserFactory(full_name="Anna Dijk"), UserFactory(full_name="Bert Bos")
    event = EventFactory(title="Nieuwjaarsduik")
    reply_post(user=anna, event_id=event.pk, text="Wie rijdt er mee vanaf Utrecht? " + "Heel lang woord" * 12)
    page.set_viewport_size({"width": 320, "height": 568})
    sign_in(page, bert)
    page.goto(page.base_url + f"/events/{event.pk}")
    replies = page.get_by_role("region", name="Reacties (1)")
    expect(replies).to_contain_text("Anna Dijk")
    expect(replies.get_by_role("button", name="Verwijder")).to_have_count(0)  # not hers to remove
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    replies.get_by_label("Jouw reactie").fill("Ik!")
    replies.get_by_role("button", name="Plaats reactie").click()
    expect(page.get_by_text("Je reactie staat erbij.")).to_be_in_viewport()
    expect(page.get_by_role("region", name="Reacties (2)")).to_contain_text("Ik!")
    screenshot(page, "replies_event_320")
    assert_no_violations(page, "/events/<id> with replies")
