"""Meldingen in real Chromium, its notification permission granted: subscribe from the tap on /account, the worker
pushes through the loopback receiver (VAPID checked, payload decrypted), the service worker shows the push and
a tap on it opens its page; removing the device, and an expired endpoint, end it.

One thing is not real here: Chromium's own push service (Google's, on the internet) cannot be reached from this
machine, so `PushManager.subscribe` is given the loopback receiver's subscription instead of asking Google for
one. Everything after it is real: the page's script, the subscribe endpoint, pywebpush with VAPID, the
receiver's checks and decryption, and the push delivered to the service worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`, a trusted push event as a push service would cause).
"""

import json

import pytest

from apps.notifications.models import Notice, PushSubscription
from apps.notifications.notices import notice_send
from tests.e2e.conftest import sign_in
from tests.e2e.test_pwa import controlled_by_the_service_worker
from tests.factories import UserFactory
from tests.mailbox import run_worker

# The receiver's subscription stands in for the one Chromium would get from its push service.
FAKE_PUSH_SERVICE = """
(subscription) => {
  const make = () => ({
    endpoint: subscription.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true },
    toJSON: () => subscription,
    unsubscribe: async () => true,
  });
  let current = null;
  PushManager.prototype.subscribe = async function () { current = make(); return current; };
  PushManager.prototype.getSubscription = async function () { return current; };
}
"""


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def _active_registration(page) -> str:
    """The id of the page's service worker registration, once DevTools reports its worker activated."""
    cdp = page.context.new_cdp_session(page)
    activated: list[str] = []
    cdp.on(
        "ServiceWorker.workerVersionUpdated",
        lambda event: activated.extend(v["registrationId"] for v in event["versions"] if v["status"] == "activated"),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(150):  # events arrive while Playwright waits
        if activated:
            break
        page.wait_for_timeout(100)
    assert activated, "no activated service worker seen"
    page.cdp = cdp
    return activated[-1]


SHOWN_NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  for (let i = 0; i < 50; i += 1) {
    const found = await registration.getNotifications();
    if (found.length) return found.map((n) => ({title: n.title, body: n.body, url: n.data.url, lang: n.lang}));
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}"""


def _push_until_shown(page, payload: dict) -> list[dict]:
    """Deliver the payload as a push event until the worker shows it.

    A push service holds a message until the browser took it; DevTools' delivery does not, and a worker that is
    still waking on a loaded machine can drop it. The payload's tag makes a second delivery replace the first.
    """
    registration = _active_registration(page)
    for _ in range(6):
        page.cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": page.base_url, "registrationId": registration, "data": json.dumps(payload)},
        )
        shown = page.evaluate(SHOWN_NOTIFICATIONS)
        if shown:
            return shown
    return []


def test_subscribe_push_show_click_and_remove(page, push_receiver):
    member = UserFactory(full_name="Marit Zwemmer")
    browser_subscription = push_receiver.subscribe()
    page.context.grant_permissions(["notifications"], origin=page.base_url)
    page.add_init_script(f"({FAKE_PUSH_SERVICE})({json.dumps(browser_subscription.as_json())})")
    sign_in(page, member)
    page.goto(page.base_url + "/account#meldingen")
    controlled_by_the_service_worker(page)

    section = page.locator("#meldingen")
    section.get_by_role("button", name="Meldingen op dit apparaat aanzetten").click()
    page.wait_for_load_state("load")
    page.get_by_text("Computer (Chrome)").wait_for()
    saved = PushSubscription.objects.get(user=member)
    assert saved.endpoint == browser_subscription.endpoint and saved.device_label == "Computer (Chrome)"

    # The worker sends: the receiver checks the VAPID JWT and decrypts what the browser would.
    notice_send(
        user=member, kind="event_changed", title="Nieuwe tijd: Nieuwjaarsduik", body="Nu om 11:00", url="/samen"
    )
    run_worker()
    assert push_receiver.rejected == []
    [payload] = push_receiver.for_endpoint(browser_subscription.endpoint)
    assert payload["title"] == "Nieuwe tijd: Nieuwjaarsduik"

    # That payload reaches the service worker as a real push event, and it shows a notification.
    shown = _push_until_shown(page, payload)
    assert shown == [{"title": "Nieuwe tijd: Nieuwjaarsduik", "body": "Nu om 11:00", "url": "/samen", "lang": "nl"}]

    # A tap on it opens its page (the click is dispatched in the worker: headless Chromium has no screen to tap).
    [worker] = page.context.service_workers
    worker.evaluate(
        """async () => {
          const [notification] = await self.registration.getNotifications();
          self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
        }"""
    )
    page.wait_for_url(page.base_url + "/samen")

    # Removing the device: no more pushes to it.
    page.goto(page.base_url + "/account#meldingen")
    page.locator("#meldingen").get_by_role("button", name="Computer (Chrome) verwijderen").click()
    page.get_by_text("Dit apparaat krijgt geen meldingen meer.").wait_for()
    assert not PushSubscription.objects.filter(user=member).exists()
    assert page.js_errors == []


def test_an_expired_subscription_is_removed_and_the_notice_mailed(page, push_receiver, smtp_server):
    member = UserFactory()
    browser_subscription = push_receiver.subscribe()
    page.context.grant_permissions(["notifications"], origin=page.base_url)
    page.add_init_script(f"({FAKE_PUSH_SERVICE})({json.dumps(browser_subscription.as_json())})")
    sign_in(page, member)
    page.goto(page.base_url + "/account#meldingen")
    controlled_by_the_service_worker(page)
    page.get_by_role("button", name="Meldingen op dit apparaat aanzetten").click()
    page.get_by_text("Computer (Chrome)").wait_for()
    assert PushSubscription.objects.filter(user=member).exists()

    push_receiver.answer(browser_subscription.endpoint, 410)
    notice = notice_send(user=member, kind="club_message", title="Zondag zwemmen", body="Om 10:00")
    run_worker()
    notice.refresh_from_db()
    assert notice.status == Notice.Status.MAILED
    assert not PushSubscription.objects.filter(user=member).exists()
    assert smtp_server.only()["Subject"] == "Zondag zwemmen"
    page.reload()
    assert page.get_by_text("Nog geen apparaat krijgt meldingen.").is_visible()


def test_the_app_sends_its_subscription_again_when_it_opens(page, push_receiver):
    """iOS drops stale subscriptions silently: every opening of the app sends the browser's one again."""
    import time

    member = UserFactory()
    browser_subscription = push_receiver.subscribe()
    page.context.grant_permissions(["notifications"], origin=page.base_url)
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    controlled_by_the_service_worker(page)
    # The worker's push manager gives the receiver's subscription (Chromium's push service is out of reach).
    [worker] = page.context.service_workers
    worker.evaluate(
        f"""() => {{
          const subscription = {json.dumps(browser_subscription.as_json())};
          PushManager.prototype.getSubscription = async () => ({{ toJSON: () => subscription }});
        }}"""
    )
    assert not PushSubscription.objects.filter(user=member).exists()

    # A new opening of the app (a new tab: a new session), on any member page.
    opened = page.context.new_page()
    opened.goto(page.base_url + "/dashboard")
    for _ in range(50):
        if PushSubscription.objects.filter(user=member, endpoint=browser_subscription.endpoint).exists():
            break
        time.sleep(0.1)
    assert PushSubscription.objects.get(user=member).device_label == "Computer (Chrome)"
    # Once per opening: more pages in the same tab send nothing again.
    PushSubscription.objects.filter(user=member).delete()
    opened.goto(page.base_url + "/samen")
    time.sleep(1)
    assert not PushSubscription.objects.filter(user=member).exists()


def test_on_an_iphone_outside_the_installed_app_the_section_says_how(browser, live_server, push_receiver):
    from tests.e2e.conftest import PHONE

    iphone = (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.4 Mobile/15E148 Safari/604.1"
    )
    context = browser.new_context(viewport=PHONE, locale="nl-NL", user_agent=iphone)
    try:
        page = context.new_page()
        page.base_url = live_server.url
        sign_in(page, UserFactory())
        page.goto(live_server.url + "/account#meldingen")
        section = page.locator("#meldingen")
        section.get_by_text("Op een iPhone of iPad werken meldingen alleen in de geïnstalleerde app").wait_for()
        assert not section.get_by_role("button", name="Meldingen op dit apparaat aanzetten").is_visible()
        assert not section.get_by_text("Deze browser kan geen meldingen ontvangen").is_visible()
    finally:
        context.close()
