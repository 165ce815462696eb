"""axe-core on every page (anonymous, member, admin, allauth's pages): zero violations. Plus keyboard-only
use of the stamp card and the reduced-motion celebration."""

import datetime
from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from django.utils import timezone

from apps.challenges.models import Challenge, Dip, UserChallenge
from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import open_settled, sign_in
from tests.factories import (
    AdminFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    EventFactory,
    EventGuestFactory,
    UserBadgeFactory,
    UserFactory,
)
from tests.security.test_authorization_matrix import PATTERNS, decision_for

AXE = Axe()


# Colour contrast is judged on what the page settles to: a toast caught halfway through its fade-in is
# paler than the one a person reads. Endless animations (a spinner) are left running.
SETTLE_ANIMATIONS = """() => Promise.all(
    document.getAnimations()
        .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
        .map((a) => a.finished.catch(() => null))
)"""


def assert_no_violations(page, label: str) -> None:
    page.evaluate(SETTLE_ANIMATIONS)
    results = AXE.run(page)
    assert results.violations_count == 0, f"{label}: {results.generate_report()}"


# Every page a person can open, by route name, with the URL the check opens and who opens it.
PAGES: dict[str, tuple[str | Callable[[], str], str]] = {
    "landing": ("/", "anonymous"),
    "auth": ("/auth", "anonymous"),
    "auth-registreren": ("/auth?tab=registreren", "anonymous"),
    "account_reset_password": ("/auth/wachtwoord-vergeten", "anonymous"),
    "account_reset_password_done": ("/auth/wachtwoord-vergeten/verstuurd", "anonymous"),
    "account_reset_password_from_key": ("/auth/wachtwoord-herstellen/1-ongeldig", "anonymous"),
    "account_reset_password_from_key_done": ("/auth/wachtwoord-hersteld", "anonymous"),
    "offline": ("/offline", "anonymous"),
    "privacy": ("/privacy", "anonymous"),
    "404": ("/bestaat-niet", "anonymous"),
    "dashboard": ("/dashboard", "member"),
    "challenge": ("/challenge", "member"),
    "account": ("/account", "member"),
    "statistics": ("/statistieken", "member"),
    # The public guest pages (the people fixture makes the event and the guest behind these links).
    "event_guest_sign_up": ("/events/gast/" + "axe-gastenlink-nieuwjaarsduik", "anonymous"),
    "event_guest_cancel": (lambda: "/events/gast/afmelden/" + _axe_guest_cancel_token(), "anonymous"),
    "event_guest_confirm": (lambda: "/events/gast/bevestigen/" + _axe_guest_confirm_token(), "anonymous"),
    "club": ("/club", "member"),
    "club-as-admin": ("/club", "admin"),
    "together": ("/samen", "member"),
    "veilig": ("/veilig", "member"),
    # A link from an old or mangled mail: the page that says so, with nothing changed.
    "mail_unsubscribe": ("/mail/afmelden/geen-geldige-link", "anonymous"),
    "account_reauthenticate": ("/auth/opnieuw/", "member"),
    # A link from a mail that no longer works: the page that says so.
    "account_confirm_email": ("/account/e-mailadres-bevestigen/ongeldig", "anonymous"),
    "mfa_index": ("/account/beveiliging/", "member"),
    "mfa_list_webauthn": ("/account/beveiliging/passkeys", "member"),
    "mfa_add_webauthn": ("/account/beveiliging/passkeys/toevoegen", "member"),
    "mfa_activate_totp": ("/account/beveiliging/app/instellen", "member"),
    "mfa_deactivate_totp": ("/account/beveiliging/app/uitzetten", "admin"),
    "mfa_generate_recovery_codes": ("/account/beveiliging/herstelcodes/nieuw", "admin"),
    "adminpanel": ("/admin", "admin"),
    "adminpanel_physical": ("/admin/fysieke-badges/", "admin"),
    "adminpanel_club_message": ("/admin/clubbericht/", "admin"),
    "adminpanel_audit_log": ("/admin/logboek/", "admin"),
    "adminpanel_club_challenges": ("/admin/clubchallenges", "admin"),
    "adminpanel_events": ("/admin/events/", "admin"),
    "adminpanel_event_new": ("/admin/events/nieuw", "admin"),
    "admin:index": ("/django-admin/", "admin"),
    # The Django admin's forms (their change pages: tests/e2e/test_admin_screens.py, at 1280 and 390 px).
    "admin:challenges_challenge_add": ("/django-admin/challenges/challenge/add/", "admin"),
    "admin:events_event_add": ("/django-admin/events/event/add/", "admin"),
}
# Pages that are no page of their own: files, redirects, POST-only forms, JSON, or a page tested elsewhere.
NOT_A_PAGE = {
    "events": "a redirect to the plan list (together: /samen)",
    "service_worker": "JavaScript",
    "healthz": "plain text",
    "event_ics": "a calendar file",
    "dip_photo": "an image",
    "dip_thumbnail": "an image",
    "adminpanel_newsletter_export": "a CSV file",
    "adminpanel_newsletter_xlsx": "an Excel file",
    "adminpanel_users_xlsx": "an Excel file",
    "adminpanel_to_send_xlsx": "an Excel file",
    "adminpanel_to_send_csv": "a CSV file",
    "adminpanel_physical_mark": "a POST form of /admin (checked with /admin)",
    "notice_subscribe": "JSON",
    "notice_device_delete": "a POST form of /account (checked with /account)",
    "notice_preferences": "a POST form of /account (checked with /account)",
    "adminpanel_club_challenge_delete": "a POST form of /admin/clubchallenges (checked with that page)",
    "account_export_download": "a redirect to the ZIP file",
    # One event's pages have its id in the path: axe checks them in tests/e2e/test_club_swim.py.
    "adminpanel_event": "an event's own admin page: axe in tests/e2e/test_club_swim.py",
    "adminpanel_event_edit": "an event's edit form: axe in tests/e2e/test_club_swim.py",
    "event": "an event's own page: axe in tests/e2e/test_club_swim.py (with replies: tests/e2e/test_replies.py)",
    "meetup": "an afspraak's own page, with its replies: axe in tests/e2e/test_replies.py",
    "event_waterkant": "a club swim's shore list: axe in tests/e2e/test_waterkant.py (a swimmer past the limit)",
    "adminpanel_event_cancel": "a POST form of /admin/events/<id> (checked with that page)",
    "adminpanel_event_attendance": "a POST form of /admin/events/<id> (checked with that page)",
    "adminpanel_event_guests_invite": "a POST form of /admin/events/<id> (checked with that page)",
    "adminpanel_event_lists_csv": "a CSV file",
    "adminpanel_event_lists_xlsx": "an Excel file",
    "account_export_file": "a ZIP file",
    "calendar_feed": "a calendar file",
    "badge_art": "an image",
    "club_photo": "an image",
    "club_thumbnail": "an image",
    "club_badge_share": "an image (its button: on /dashboard)",
    "mfa_download_recovery_codes": "a text file",
    "mfa_view_recovery_codes": "shown right after generating them: mfa_generate_recovery_codes leads there",
    "mfa_reauthenticate_webauthn": "without a passkey it leads to account_reauthenticate; with one: test_passkeys.py",
    "mfa_edit_webauthn": "needs a real passkey: tests/e2e/test_passkeys.py",
    "mfa_remove_webauthn": "needs a real passkey: tests/e2e/test_passkeys.py (checked there)",
}
CHECKED_DECISIONS = {"public", "guest", "member", "admin", "allauth_member"}


def test_every_page_is_checked():
    keys = {p.key for p in PATTERNS if decision_for(p) in CHECKED_DECISIONS}
    missing = keys - set(PAGES) - set(NOT_A_PAGE)
    assert not missing, f"pages without an axe check: {missing}"


def _axe_guest_cancel_token() -> str:
    from apps.events.models import EventGuest
    from apps.events.notices import guest_cancel_token

    return guest_cancel_token(EventGuest.objects.get(email="axe-gast@example.nl"))


def _axe_guest_confirm_token() -> str:
    from apps.events.models import EventGuest
    from apps.events.notices import guest_confirm_token

    return guest_confirm_token(EventGuest.objects.get(email="axe-gast-bevestigt@example.nl"))


@pytest.fixture
def people():
    member = UserFactory(full_name="Marit Zwemmer")
    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
    )
    Dip.objects.create(user=member, user_challenge=card, number=1, dip_date="2026-11-20")
    # A row in the physical badges list, with its form. The challenge's own badge: a new one's milestone
    # (a factory sequence) could clash with the seeded ones, depending on which tests ran before.
    UserBadgeFactory(user_challenge=card, badge=card.challenge.badges.first())
    EventFactory()
    # The dashboard's club challenges (one taken part in, one not) and the list on /admin/clubchallenges.
    ClubChallengeEntryFactory(user=member, club_challenge=ClubChallengeFactory(name="Dip a Day December"))
    ClubChallengeFactory(name="Samen naar 1000", kind="clubdoel", target=1000)
    guest_event = EventFactory(
        title="Nieuwjaarsduik", open_for_guests=True, guest_token="axe-gastenlink-nieuwjaarsduik"
    )
    EventGuestFactory(event=guest_event, name="Gijs Gast", email="axe-gast@example.nl")
    # A place held until the guest confirms it from the mail (GUEST_CONFIRM_MINUTES).
    EventGuestFactory(
        event=guest_event,
        name="Greet Gast",
        email="axe-gast-bevestigt@example.nl",
        confirm_by=timezone.now() + datetime.timedelta(minutes=30),
    )
    return {"member": member, "admin": AdminFactory(full_name="Anna Admin")}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_axe_violations(page, people, name):
    url, role = PAGES[name]
    url = url() if callable(url) else url
    if role != "anonymous":
        sign_in(page, people[role])
    open_settled(page, page.base_url + url)
    assert_no_violations(page, name)


def test_no_axe_violations_at_the_second_sign_in_step_and_after_a_dip(page, people, tmp_path):
    from tests.factories import DEFAULT_PASSWORD

    page.goto(page.base_url + "/auth")
    page.get_by_label("E-mailadres").fill(people["admin"].email)
    page.get_by_label("Wachtwoord", exact=True).fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Inloggen", exact=True).click()
    page.wait_for_url(page.base_url + reverse("mfa_authenticate"))
    assert_no_violations(page, "mfa_authenticate")

    page.context.clear_cookies()
    sign_in(page, people["member"])
    page.goto(page.base_url + "/challenge")
    photo = tmp_path / "zee.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(320, 240)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    assert_no_violations(page, "stamp card with a chosen photo")
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Plons toegevoegd!").first.wait_for()
    page.get_by_text("Foto toegevoegd.").wait_for()  # the photo follows its dip, with a status line
    assert_no_violations(page, "stamp card after a dip")


# --- the keyboard alone ---------------------------------------------------------------------------


FOCUSED_NAME = "(e => (e.getAttribute('aria-label') || e.innerText || '').trim())(document.activeElement)"


def tab_to(page, name: str, *, max_presses: int = 60) -> None:
    """Presses Tab until the focused element's text or label is `name` (as a person with only a keyboard)."""
    for _ in range(max_presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_NAME)
        if focused == name:
            return
    raise AssertionError(f"'{name}' cannot be reached with Tab")


def test_keyboard_only_registers_a_dip_with_details_and_stops_the_challenge(page, tmp_path):
    member = UserFactory()
    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
    )
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    page.get_by_role("heading", name="Voeg plons toe").wait_for()

    # The photo input opens the system's file picker on Enter; Playwright answers it with a file.
    photo = tmp_path / "ijs.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(320, 240)))
    # Listening before the key press: Chromium's picker is intercepted only once someone listens.
    page.on("filechooser", lambda chooser: chooser.set_files(str(photo)))
    page.wait_for_timeout(0)
    for _ in range(60):  # the file input is hidden behind its Dutch label, but still reached by Tab
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.type") == "file":
            break
    assert page.evaluate("document.activeElement.type") == "file", "the photo input cannot be reached with Tab"
    page.keyboard.press("Space")
    page.get_by_text("ijs.jpg").wait_for()

    # The folded details open with Enter on their summary; the temperature takes a Dutch comma.
    tab_to(page, "Details (optioneel)")
    page.keyboard.press("Enter")
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "water_temperature":
            break
    assert page.evaluate("document.activeElement.labels[0].textContent").startswith("Watertemperatuur (°C)")
    page.keyboard.type("4,5")

    tab_to(page, "Plons registreren")
    page.keyboard.press("Enter")
    page.get_by_text("Plons toegevoegd!").first.wait_for()
    page.get_by_text("Nog 4 plonsen te gaan!").wait_for()
    page.get_by_text("Foto toegevoegd.").first.wait_for()  # the photo goes up after the dip's answer
    assert card.dips.count() == 1 and card.dips.get().photo
    assert str(card.dips.get().water_temperature) == "4.5"

    page.goto(page.base_url + "/challenge")
    tab_to(page, "Challenge Stoppen")
    page.keyboard.press("Enter")
    tab_to(page, "Ja, stop en verwijder")
    page.keyboard.press("Enter")
    page.wait_for_url(page.base_url + "/dashboard")
    page.get_by_text("Challenge gestopt en volledig verwijderd!").wait_for()
    assert not UserChallenge.objects.filter(pk=card.pk).exists()


# --- less motion ----------------------------------------------------------------------------------


def test_the_celebration_stands_still_for_reduced_motion(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce", locale="nl-NL")
    page = context.new_page()
    page.base_url = live_server.url
    try:
        member = UserFactory()
        card = UserChallenge.objects.create(
            user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
        )
        Dip.objects.bulk_create(
            [Dip(user=member, user_challenge=card, number=n, dip_date="2026-11-20") for n in range(1, 5)]
        )
        sign_in(page, member)
        page.goto(page.base_url + "/challenge")
        page.get_by_role("button", name="Plons registreren").click()
        celebration = page.get_by_test_id("celebration")
        celebration.wait_for()
        assert "kw-celebration--static" in celebration.get_attribute("class")
        assert "Gefeliciteerd!" in celebration.inner_text()
        # Nothing in it moves.
        running = "el => el.getAnimations({subtree: true}).filter(a => a.playState === 'running').length"
        assert celebration.evaluate(running) == 0
        assert_no_violations(page, "celebration with reduced motion")
    finally:
        context.close()
