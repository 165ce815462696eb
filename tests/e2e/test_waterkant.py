"""Aan de waterkant in real Chromium at 360 px: taps without signal kept on the phone, through an offline reload, sent
once in order when the signal is back; two organisers on two phones see each other's taps, and a conflict ends at
the later tap; "Iedereen is eruit" only when the list agrees. Screenshots at 320, 390 and 1280 px."""

import datetime

from django.utils import timezone

from apps.attendance.models import Attendance, ShoreList, ShoreSwimmer
from tests.e2e.conftest import PHONE, screenshot, sign_in
from tests.e2e.screens import shore_swim
from tests.e2e.test_accessibility import assert_no_violations
from tests.e2e.test_pwa import controlled_by_the_service_worker
from tests.factories import AdminFactory, EventFactory, EventParticipantFactory, OrganiserFactory, UserFactory

NARROW = {"width": 360, "height": 740}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
# Every button and link of the list is at least 44 px high: the smallest one, and how high it is.
SMALLEST_TARGET = """() => Math.min(...[...document.querySelectorAll('.wk button, .wk a, .wk input')]
  .map(element => element.getBoundingClientRect().height))"""


def _row(page, name: str):
    return page.locator(".wk-row", has_text=name)


def _swim_with(*names: str):
    now = timezone.localtime()
    start = max(now - datetime.timedelta(minutes=10), now.replace(hour=0, minute=0, second=0, microsecond=0))
    event = EventFactory(title="Zondagduik", event_date=start, open_for_guests=True)
    members = {}
    for name in names:
        members[name] = UserFactory(full_name=name)
        EventParticipantFactory(event=event, user=members[name])
    return event, members


def _fits(page) -> None:
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.evaluate(SMALLEST_TARGET) >= 44


def test_taps_without_signal_survive_a_reload_and_arrive_once_in_order(page):
    event, members = _swim_with("Anna de Vries", "Bram Buddy")
    page.set_viewport_size(NARROW)
    sign_in(page, OrganiserFactory(full_name="Olga Organisator"))
    page.goto(f"{page.base_url}/events/{event.pk}/waterkant")
    controlled_by_the_service_worker(page)  # the worker keeps the page for a reload without signal
    _row(page, "Anna de Vries").get_by_role("button", name="In het water").wait_for()
    _fits(page)

    page.context.set_offline(True)
    _row(page, "Anna de Vries").get_by_role("button", name="In het water").click()
    page.get_by_label("Gast erbij (alleen de voornaam)").fill("Noor")
    page.get_by_role("button", name="Gast erbij").click()
    _row(page, "Noor").get_by_role("button", name="In het water").click()
    page.get_by_text("3 tikken wachten op de telefoon").wait_for()
    page.get_by_text("2 zwemmers in het water").wait_for()

    page.reload()  # still without signal: the kept page, with the taps kept on the phone
    _row(page, "Noor").get_by_text("In het water sinds").wait_for()
    _row(page, "Anna de Vries").get_by_role("button", name="Eruit").wait_for()
    screenshot(page, "waterkant-offline-360")
    assert not ShoreSwimmer.objects.exists()

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.get_by_text("tikken wachten").wait_for(state="detached")
    anna = ShoreSwimmer.objects.get(user=members["Anna de Vries"])
    noor = ShoreSwimmer.objects.get(first_name="Noor")
    assert anna.in_water and noor.in_water and ShoreSwimmer.objects.count() == 2
    # Whoever went in was at the swim; guests have no attendance.
    assert list(Attendance.objects.filter(event=event).values_list("user__full_name", flat=True)) == ["Anna de Vries"]
    # The browser's own lines for the requests that found no signal, and nothing else.
    assert [error for error in page.js_errors if "ERR_INTERNET_DISCONNECTED" not in error] == []


def test_two_organisers_see_each_others_taps_and_the_later_tap_wins(browser, live_server):
    event, members = _swim_with("Anna de Vries", "Carla Koud")
    phones = []
    for organiser in (OrganiserFactory(full_name="Olga Organisator"), AdminFactory(full_name="Anna Admin")):
        context = browser.new_context(viewport=NARROW, locale="nl-NL", timezone_id="Europe/Amsterdam")
        phone = context.new_page()
        phone.set_default_timeout(10_000)
        phone.base_url = live_server.url
        sign_in(phone, organiser)
        phone.goto(f"{live_server.url}/events/{event.pk}/waterkant")
        phones.append(phone)
    olga, admin = phones
    try:
        # Olga taps Anna in; the other phone sees it within seconds.
        _row(olga, "Anna de Vries").get_by_role("button", name="In het water").click()
        _row(admin, "Anna de Vries").get_by_role("button", name="Eruit").wait_for()
        admin.get_by_text("Langst erin: Anna de Vries").wait_for()

        # A conflict: Olga, without signal, taps Carla in; later the admin taps Carla in and out. Olga's older
        # tap arrives last, and the later tap (out) wins on both phones.
        olga.context.set_offline(True)
        _row(olga, "Carla Koud").get_by_role("button", name="In het water").click()
        _row(admin, "Carla Koud").get_by_role("button", name="In het water").click()
        _row(admin, "Carla Koud").get_by_role("button", name="Eruit").click()
        _row(admin, "Carla Koud").get_by_text("Eruit om").wait_for()
        olga.context.set_offline(False)
        olga.evaluate("window.dispatchEvent(new Event('online'))")
        _row(olga, "Carla Koud").get_by_text("Eruit om").wait_for()
        carla = ShoreSwimmer.objects.get(user=members["Carla Koud"])
        assert not carla.in_water and carla.came_out_at > carla.went_in_at

        # "Iedereen is eruit" only when the list agrees; then it closes on both phones.
        assert olga.get_by_role("button", name="Iedereen is eruit").is_disabled()
        _row(admin, "Anna de Vries").get_by_role("button", name="Eruit").click()
        olga.get_by_text("0 zwemmers in het water").wait_for()
        olga.get_by_role("button", name="Iedereen is eruit").click()
        admin.get_by_text("Iedereen is eruit, om").wait_for()
        assert ShoreList.objects.get(event=event).closed_at is not None
        for phone in phones:
            assert phone.evaluate(NO_SIDEWAYS_SCROLL)
        screenshot(olga, "waterkant-two-organisers-360")
    finally:
        for phone in phones:
            phone.context.close()


def test_the_longest_swimmer_past_the_limit_stands_out_quietly(page, settings):
    event = shore_swim()
    sign_in(page, OrganiserFactory(full_name="Otto Organisator"))
    page.goto(f"{page.base_url}/events/{event.pk}/waterkant")
    top = page.locator(".wk-top")
    top.get_by_text("Langst erin: Anna de Vries").wait_for()
    assert "wk-top--long" in (top.get_attribute("class") or "")  # 20 minutes, past the club's 15
    assert page.locator("audio, video").count() == 0
    assert_no_violations(page, "event_waterkant, a swimmer past the limit")
    for width in (320, PHONE["width"], 1280):
        page.set_viewport_size({"width": width, "height": 844 if width < 1280 else 900})
        assert page.evaluate(NO_SIDEWAYS_SCROLL), width
        screenshot(page, f"waterkant-{width}")
    page.set_viewport_size(NARROW)
    _fits(page)
