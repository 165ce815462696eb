"""The app at the water's edge, in real Chromium: installable, a service worker at "/", dips without signal."""

import datetime
import time

from django.utils import timezone

from apps.challenges.models import Challenge, UserChallenge
from apps.challenges.services.dips import dip_register
from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import CHROMIUM, PHONE, screenshot, sign_in
from tests.factories import UserFactory

WAITING = "Wacht op verbinding"


# Polled in the page: wait_for_function takes an async predicate's promise for a truthy answer and would not wait.
POLL = """
([arg, seconds, what]) => new Promise((resolve, reject) => {
  const state = STATE;
  const until = Date.now() + seconds * 1000;
  const check = async () => {
    if (await state(arg)) return resolve(true);
    if (Date.now() > until) reject(new Error(what));
    else setTimeout(check, 50);
  };
  check().catch(reject);
})
"""


def wait_in_page(page, state: str, arg=None, *, what: str, seconds: float = 10) -> None:
    """Asks the async JS function `state` in the page every 50 ms until it answers truthy; fails with `what` after
    `seconds`."""
    page.evaluate(POLL.replace("STATE", state), [arg, seconds, what])


def controlled_by_the_service_worker(page) -> None:
    """Waits until the worker is active, then loads the page again through it (the first visit was not)."""
    active = "async () => Boolean((await navigator.serviceWorker.getRegistration())?.active)"
    wait_in_page(page, active, what="the service worker did not become active")
    # Once more through the worker, so that it keeps this page.
    page.reload()
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == page.base_url + "/sw.js"


def test_chromium_reports_the_app_installable(browser, live_server, tmp_path):
    # Chromium never offers installation in an incognito context: this one has a real profile.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu"],
        viewport=PHONE,
        locale="nl-NL",
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.base_url = live_server.url
        sign_in(page, UserFactory())
        page.goto(page.base_url + "/dashboard")
        controlled_by_the_service_worker(page)
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [] and manifest["url"] == page.base_url + "/static/manifest.webmanifest"
        # What the installed app shows: the page alone (no browser bar) at phone width.
        screenshot(page, "installed-app-dashboard")
    finally:
        context.close()


def test_two_dips_tapped_offline_arrive_once_each_with_photo_and_tap_time(page, tmp_path):
    member = UserFactory()
    card = UserChallenge.objects.create(
        user=member,
        challenge=Challenge.objects.get(target_dips=5),
        challenge_type="normal",
        started_at=timezone.now() - datetime.timedelta(days=1),  # a tap before the card's start would not count
    )
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    controlled_by_the_service_worker(page)
    page.get_by_role("heading", name="Voeg plons toe").wait_for()

    # Tapped on the beach an hour and a half ago, without signal.
    first_tap = (timezone.now() - datetime.timedelta(hours=1, minutes=30)).replace(microsecond=0)
    second_tap = first_tap + datetime.timedelta(minutes=2)
    page.context.set_offline(True)
    page.clock.set_fixed_time(first_tap)
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text(WAITING).first.wait_for()

    photo = tmp_path / "strand.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(640, 480)))
    page.clock.set_fixed_time(second_tap)
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text(WAITING).nth(1).wait_for()
    assert card.dips.count() == 0

    # Still without signal, the page opens again from the phone, with both taps still waiting.
    page.reload()
    page.get_by_text(WAITING).nth(1).wait_for()
    assert page.get_by_text(WAITING).count() == 2
    screenshot(page, "offline-card")

    page.context.set_offline(False)
    page.get_by_text("Nog 3 plonsen te gaan!").wait_for()
    page.get_by_text(WAITING).first.wait_for(state="detached")

    dips = list(card.dips.order_by("number"))
    assert len(dips) == 2
    assert [dip.created_at for dip in dips] == [first_tap, second_tap]
    assert [bool(dip.photo) for dip in dips] == [False, True]
    assert dips[1].photo.name.startswith(f"{member.pk}/")


def test_signing_out_leaves_no_page_of_the_member_on_the_phone(page):
    member = UserFactory(full_name="Marit Geheim")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    controlled_by_the_service_worker(page)
    page.goto(page.base_url + "/dashboard")
    assert page.evaluate("caches.keys().then(keys => keys.filter(k => k.startsWith('koud-pages-')).length)") == 1

    page.get_by_role("button", name="Uitloggen").click()
    page.wait_for_url(page.base_url + "/")
    assert page.evaluate("caches.keys().then(keys => keys.filter(k => k.startsWith('koud-pages-')).length)") == 0

    page.context.set_offline(True)
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("heading", name="Geen verbinding…").wait_for()
    assert "Marit Geheim" not in page.content()


def test_another_members_page_replaces_everything_kept_of_the_first(page):
    first = UserFactory(full_name="Eerste Zwemmer")
    second = UserFactory(full_name="Tweede Zwemmer")
    kept = "caches.keys().then(keys => keys.filter(k => k.startsWith('koud-pages-')))"
    sign_in(page, first)
    page.goto(page.base_url + "/dashboard")
    controlled_by_the_service_worker(page)
    page.goto(page.base_url + "/account")
    [first_cache] = page.evaluate(kept)

    # Someone else signs in on the same phone (a new session cookie, no sign-out in between).
    page.context.clear_cookies()
    sign_in(page, second)
    page.goto(page.base_url + "/dashboard")
    [second_cache] = page.evaluate(kept)
    assert second_cache != first_cache

    page.context.set_offline(True)
    page.goto(page.base_url + "/account")  # kept for the first member only: gone
    page.get_by_role("heading", name="Geen verbinding…").wait_for()
    page.goto(page.base_url + "/dashboard")
    page.get_by_text("Tweede Zwemmer").first.wait_for()
    assert "Eerste Zwemmer" not in page.content()


KEPT = "x-koud-kept-at"  # added by the service worker to a page it keeps (frontend/src/sw/pages.ts)


def starter_card(member) -> UserChallenge:
    return UserChallenge.objects.create(
        user=member,
        challenge=Challenge.objects.get(target_dips=5),
        challenge_type="normal",
        started_at=timezone.now() - datetime.timedelta(days=1),
    )


def card_kept_on_the_phone(page):
    """A member with a starter card whose /challenge the service worker has kept."""
    member = UserFactory()
    starter_card(member)
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    controlled_by_the_service_worker(page)
    page.get_by_text("Nog 5 plonsen te gaan!").wait_for()
    return member


KEPT_AFTER_THE_LAST_WRITE = """
async (path) => {
  for (const name of (await caches.keys()).filter((name) => name.startsWith("koud-pages-"))) {
    const cache = await caches.open(name);
    const kept = await cache.match(path);
    const written = await cache.match("/__koud/written");
    const writtenAt = written ? Number(await written.text()) : 0;
    if (kept && Number(kept.headers.get("X-Koud-Kept-At")) > writtenAt) return true;
  }
  return false;
}
"""


KEPT_SINCE = """
async ([path, since]) => {
  for (const name of (await caches.keys()).filter((name) => name.startsWith("koud-pages-"))) {
    const kept = await (await caches.open(name)).match(path, { ignoreVary: true });
    if (kept && Number(kept.headers.get("X-Koud-Kept-At")) >= since) return true;
  }
  return false;
}
"""


def visit_and_wait_for_the_refresh(page, path: str):
    """Opens `path` and waits until the worker has asked the server for it again behind the kept copy and kept the
    answer (frontend/src/sw/pages.ts): from then on nothing the test changes on the server races that refresh."""
    since = page.evaluate("Date.now()")
    response = page.goto(page.base_url + path)
    wait_in_page(page, KEPT_SINCE, [path, since], what=f"{path} was not asked again behind the kept copy")
    return response


def kept_after_the_last_write(page, path: str) -> None:
    """Waits until the worker keeps `path` asked after this phone's last write: the copy it shows at once on the next
    visit (frontend/src/sw/pages.ts). Its count is drawn by the stamp card: the test reads it on the page."""
    wait_in_page(page, KEPT_AFTER_THE_LAST_WRITE, path, what=f"{path} not kept after the last write")


def test_a_kept_page_shows_at_once_and_the_newer_one_swaps_in(page):
    member = card_kept_on_the_phone(page)

    # The next visit is the kept page, before the server answers; nothing changed, so it stays.
    response = visit_and_wait_for_the_refresh(page, "/challenge")
    assert response.from_service_worker and KEPT in response.headers
    assert page.get_by_text("Nog 5 plonsen te gaan!").is_visible()

    # A dip from another phone: the kept page shows first, then the server's page takes its place by itself.
    dip_register(user=member)
    response = page.goto(page.base_url + "/challenge")
    assert KEPT in response.headers
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()


def test_after_a_dip_on_this_phone_the_next_page_is_kept_with_the_new_count(page):
    card_kept_on_the_phone(page)
    assert KEPT in page.goto(page.base_url + "/challenge").headers
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()

    # The worker asks for the page again after the dip and keeps it (issue 37 goal 3): wait for that state.
    kept_after_the_last_write(page, "/challenge")
    response = page.goto(page.base_url + "/challenge")
    assert response.from_service_worker and KEPT in response.headers  # at once, from the phone
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()
    assert page.get_by_text("Nog 5 plonsen te gaan!").count() == 0  # never the count before the dip


def test_after_a_dip_with_a_photo_the_next_page_is_kept_with_the_new_count(page, tmp_path):
    card_kept_on_the_phone(page)
    assert KEPT in page.goto(page.base_url + "/challenge").headers
    photo = tmp_path / "strand.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(640, 480)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Foto toegevoegd.").wait_for()

    # The photo's request is a write of its own, after the dip's: the worker keeps the page again after it, or the
    # next visit waits for the server.
    kept_after_the_last_write(page, "/challenge")
    response = page.goto(page.base_url + "/challenge")
    assert response.from_service_worker and KEPT in response.headers  # at once, from the phone
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()


def test_a_new_session_on_the_phone_waits_for_the_server(page):
    first = UserFactory(full_name="Eerste Zwemmer")
    second = UserFactory(full_name="Tweede Zwemmer")
    sign_in(page, first)
    page.goto(page.base_url + "/dashboard")
    controlled_by_the_service_worker(page)
    assert KEPT in page.goto(page.base_url + "/dashboard").headers

    # A new session cookie without a sign-out in between (the member cookie went with the old session).
    page.context.clear_cookies()
    sign_in(page, second)
    response = page.goto(page.base_url + "/dashboard")
    assert KEPT not in response.headers
    assert "Eerste Zwemmer" not in page.content()
    page.get_by_text("Tweede Zwemmer").first.wait_for()


def test_a_member_who_touched_the_page_is_offered_the_newer_one(page, monkeypatch):
    from apps.core import page_cache
    from tests.e2e.test_accessibility import assert_no_violations

    member = card_kept_on_the_phone(page)
    dip_register(user=member)
    # The server answers slowly (a weak signal): the member is already busy with the kept page.
    serve = page_cache._serve
    monkeypatch.setattr(page_cache, "_serve", lambda *a, **kw: (time.sleep(2), serve(*a, **kw))[1])
    assert KEPT in page.goto(page.base_url + "/challenge").headers
    page.keyboard.press("Shift")

    bar = page.get_by_role("status").filter(has_text="Er is nieuws op deze pagina.")
    bar.wait_for()
    # Measured where it comes to rest: the bar slides in (toast-in), and a box mid-slide is a fraction of a pixel off.
    page.wait_for_function(
        "bar => bar.getAnimations({subtree: true}).every((a) => a.playState === 'finished')", arg=bar.element_handle()
    )
    assert page.get_by_text("Nog 5 plonsen te gaan!").is_visible()  # nothing pulled from under the finger
    button = bar.get_by_role("button", name="Vernieuwen")
    box = button.bounding_box()
    assert round(box["height"]) >= 44 and round(box["width"]) >= 44  # layout sizes are fractional (43.99999)
    assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"]
    assert_no_violations(page, "the newer-page bar")
    screenshot(page, "newer-page-bar-390")
    for width in (320, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), width
        screenshot(page, f"newer-page-bar-{width}")
    page.set_viewport_size(PHONE)

    button.click()
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()
    assert bar.count() == 0


def test_kept_pages_end_with_the_session_that_made_them(page):
    """A new password on another device ends the phone's session: as soon as the phone hears from the app
    at all (here a plain request, no page), the pages it kept are not shown any more, not even offline."""
    member = UserFactory(full_name="Marit Verloren")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    controlled_by_the_service_worker(page)
    page.goto(page.base_url + "/account")
    # The new password only once the refresh behind this visit is back: else that refresh, signed out, reloads
    # the page under the request below.
    visit_and_wait_for_the_refresh(page, "/dashboard")

    member.set_password("een-heel-nieuw-wachtwoord")  # on the laptop: every other session ends
    member.save()
    assert page.evaluate("fetch('/healthz').then(r => r.status)") == 200
    assert "koud_member" not in {cookie["name"] for cookie in page.context.cookies()}

    page.context.set_offline(True)
    for path in ("/account", "/dashboard"):
        page.goto(page.base_url + path)
        page.get_by_role("heading", name="Geen verbinding…").wait_for()
        assert "Marit Verloren" not in page.content()
    assert page.evaluate("caches.keys().then(keys => keys.filter(k => k.startsWith('koud-pages-')).length)") == 0
