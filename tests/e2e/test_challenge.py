"""The heart of the app in real Chromium: start a card, register dips, earn a badge, stop, finish."""

from playwright.sync_api import expect

from apps.challenges.models import Challenge, Dip, UserChallenge
from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import UserFactory


def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


def register(page):
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Plons toegevoegd!").first.wait_for()
    page.get_by_role("button", name="Plons registreren").wait_for()  # enabled again, not 'Uploaden...'


def test_start_waterdieren_and_register_dips_with_and_without_photo(page, tmp_path):
    member = UserFactory(full_name="Wieke Water")
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("button", name="Start Nu").click()
    page.wait_for_url("**/challenge")
    page.get_by_text("Challenge gestart!").wait_for()
    expect(page.get_by_text("Nog 100 plonsen te gaan!")).to_be_visible()

    register(page)
    expect(page.get_by_text("Nog 99 plonsen te gaan!")).to_be_visible()

    photo = tmp_path / "zee.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(640, 480)))
    page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    register(page)  # the dip is answered first; its photo follows to the dip
    expect(page.get_by_text("Nog 98 plonsen te gaan!")).to_be_visible()
    expect(page.get_by_text("Foto toegevoegd.")).to_be_visible()
    thumbnail = page.get_by_role("img", name="Foto bij plons 2").first
    thumbnail.scroll_into_view_if_needed()  # thumbnails load lazily
    assert thumbnail.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0

    card = UserChallenge.objects.get(user=member)
    assert list(card.dips.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert Dip.objects.get(user_challenge=card, number=2).photo.name.startswith(f"{member.pk}/")
    assert page.js_errors == []


def test_a_double_tap_registers_one_dip(page):
    member = UserFactory()
    UserChallenge.objects.create(user=member, challenge=waterdieren(), challenge_type="waterdieren")
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    page.get_by_role("button", name="Plons registreren").dblclick()
    page.get_by_text("Plons toegevoegd!").first.wait_for()
    page.get_by_role("button", name="Plons registreren").wait_for()
    assert Dip.objects.filter(user=member).count() == 1


def test_reaching_a_milestone_shows_the_badge_and_its_toast(page):
    member = UserFactory()
    card = UserChallenge.objects.create(user=member, challenge=waterdieren(), challenge_type="waterdieren")
    Dip.objects.bulk_create(
        [Dip(user=member, user_challenge=card, number=n, dip_date="2026-11-01") for n in range(1, 5)]
    )
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    expect(page.get_by_role("heading", name="Verdiende Badges (0 / 6)")).to_be_visible()
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_text("Badge verdiend: Waterslak!").wait_for()
    page.get_by_role("heading", name="Verdiende Badges (1 / 6)").wait_for()
    assert page.get_by_test_id("celebration").count() == 1


def test_stop_a_challenge_after_confirming(page):
    member = UserFactory()
    card = UserChallenge.objects.create(user=member, challenge=waterdieren(), challenge_type="waterdieren")
    Dip.objects.create(user=member, user_challenge=card, number=1, dip_date="2026-11-01")
    sign_in(page, member)
    page.goto(page.base_url + "/challenge")
    page.get_by_text("Challenge Stoppen", exact=True).click()
    page.get_by_role("button", name="Ja, stop en verwijder").click()
    page.wait_for_url("**/dashboard")
    page.get_by_text("Challenge gestopt en volledig verwijderd!").wait_for()
    assert not UserChallenge.objects.filter(user=member).exists() and not Dip.objects.filter(user=member).exists()


def test_finish_the_five_dip_challenge_with_its_celebration(page):
    member = UserFactory()
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    starter = page.locator("article", has_text="Eerste Plonsen")
    starter.get_by_role("button", name="Start challenge").click()
    page.wait_for_url("**/challenge")
    for _ in range(4):
        register(page)
    page.get_by_role("button", name="Plons registreren").click()
    page.get_by_role("heading", name="Challenge Voltooid!").wait_for()
    assert page.get_by_test_id("celebration").inner_text().find("Gefeliciteerd!") >= 0
    assert page.get_by_role("button", name="Plons registreren").count() == 0
    assert UserChallenge.objects.get(user=member).completed_at is not None

    page.goto(page.base_url + "/dashboard")
    expect(page.get_by_role("heading", name="Je verdiende badges (1)")).to_be_visible()
    expect(page.get_by_text("Waterslak").first).to_be_visible()


def test_the_cards_button_is_painted_before_the_island_and_then_is_the_islands(page, browser, live_server):
    """ "Plons registreren" is in the page's own HTML, so it paints with the first paint (issue 37 §4): without
    JavaScript it shows, disabled (a <noscript> line asks for JavaScript); with it, the island's own button
    takes its place, one button, and it registers the dip."""
    member = UserFactory()
    UserChallenge.objects.create(user=member, challenge=waterdieren(), challenge_type="waterdieren")
    sign_in(page, member)
    cookies = page.context.cookies()
    without_js = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    without_js.add_cookies(cookies)
    plain = without_js.new_page()
    plain.goto(page.base_url + "/challenge")
    button = plain.get_by_role("button", name="Plons registreren")
    expect(button).to_be_visible()
    expect(button).to_be_disabled()
    screenshot(plain, "challenge-before-island", full_page=False)
    without_js.close()

    page.goto(page.base_url + "/challenge")
    page.locator("#stampcard-root .sc-root").wait_for()
    expect(page.get_by_role("button", name="Plons registreren")).to_have_count(1)
    expect(page.get_by_role("button", name="Plons registreren")).to_be_enabled()
    expect(page.get_by_role("heading", name="Voortgang")).to_have_count(1)  # the fallback left with its button
    register(page)
    assert Dip.objects.filter(user=member).count() == 1
    assert page.js_errors == []
