"""De club in real Chromium: one member shares a dip with a photo, another sees it on /club and gives Brrr!."""

import re

from playwright.sync_api import expect

from apps.challenges.models import Challenge, ClubChallenge, ClubChallengeEntry, Dip, UserChallenge
from apps.club.models import Brrr, ClubSharing
from tests.challenges.photo_samples import image_bytes
from tests.e2e.conftest import screenshot, sign_in
from tests.factories import ClubChallengeFactory, UserBadgeFactory, UserFactory


def _phone(browser):
    """A phone of its own (own cookies): two members side by side."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="nl-NL", timezone_id="Europe/Amsterdam"
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def test_a_shared_dip_with_its_photo_reaches_a_clubmate_who_gives_brrr(browser, live_server, tmp_path):
    kees = UserFactory(full_name="Kees Koud")
    marit = UserFactory(full_name="Marit Zwemmer")
    UserChallenge.objects.create(user=kees, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal")
    photo = tmp_path / "sloterplas.jpg"
    photo.write_bytes(image_bytes("JPEG", size=(800, 600)))

    kees_page = _phone(browser)
    kees_page.base_url = live_server.url
    sign_in(kees_page, kees)
    # The first visit asks once, with a clear yes or no.
    kees_page.goto(live_server.url + "/club")
    kees_page.get_by_role("button", name="Ja, deel mijn plonsen").click()
    expect(kees_page.get_by_text("Je plonsen zijn nu te zien in de club.")).to_be_visible()
    expect(kees_page.get_by_role("button", name="Ja, deel mijn plonsen")).to_have_count(0)
    # A dip with a photo, shared with the club.
    kees_page.goto(live_server.url + "/challenge")
    kees_page.get_by_label("Foto (optioneel)").set_input_files(str(photo))
    kees_page.get_by_label("Deel deze foto met de club").check()
    screenshot(kees_page, "challenge-share-photo")
    kees_page.get_by_role("button", name="Plons registreren").click()
    expect(kees_page.get_by_text("Plons toegevoegd!").first).to_be_visible(timeout=20_000)
    expect(kees_page.get_by_text("Foto toegevoegd.")).to_be_visible(timeout=20_000)  # the photo follows its dip
    dip = Dip.objects.get(user=kees)
    assert dip.share_photo and dip.photo
    kees_page.context.close()

    page = _phone(browser)
    page.base_url = live_server.url
    errors: list = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page, marit)
    page.goto(live_server.url + "/club")
    item = page.locator(f"#item-dip-{dip.pk}")
    expect(item.get_by_text("Kees Koud plonste")).to_be_visible()
    image = item.get_by_role("img", name="Foto bij de plons van Kees Koud")
    expect(image).to_be_visible()
    # The photo has loaded and decoded: waited for as a state (on a busy machine it comes after the element).
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle())

    item.get_by_role("button", name="Brrr!").click()
    item = page.locator(f"#item-dip-{dip.pk}")
    expect(item.get_by_role("button", name="Brrr!")).to_have_attribute("aria-pressed", "true")
    item.get_by_text("1 × Brrr!").click()  # on tap: who
    expect(item.get_by_role("listitem").filter(has_text="Marit Zwemmer")).to_be_visible()
    assert Brrr.objects.filter(user=marit, object_id=dip.pk, owner=kees).count() == 1
    screenshot(page, "club-after-brrr")

    # Taken back with a second tap.
    item.get_by_role("button", name="Brrr!").click()
    expect(page.locator(f"#item-dip-{dip.pk}").get_by_role("button", name="Brrr!")).to_have_attribute(
        "aria-pressed", "false"
    )
    assert not Brrr.objects.exists()
    assert errors == []
    # Marit chose nothing yet: she is asked, and saying no keeps her dips to herself.
    page.get_by_role("button", name="Nee, liever niet").click()
    expect(page.get_by_text("Je plonsen zijn niet (meer) te zien in de club.")).to_be_visible()
    assert ClubSharing.objects.get(user=marit).share_dips is False
    page.context.close()


def test_deel_je_badge_downloads_the_image_where_the_phone_cannot_share_files(page, tmp_path):
    member = UserFactory()
    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
    )
    award = UserBadgeFactory(user_challenge=card, badge=card.challenge.badges.first())
    sign_in(page, member)
    page.goto(page.base_url + "/dashboard")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Deel je badge").click()
    download = download_info.value
    assert re.fullmatch(r"badge-[a-z0-9-]+\.png", download.suggested_filename)
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert award.badge.name


SHARE_STUB = """() => {
  window.__shared = [];
  navigator.canShare = (data) => Array.isArray(data.files) && data.files.length === 1;
  navigator.share = (data) => { window.__shared.push({name: data.files[0].name, type: data.files[0].type,
    size: data.files[0].size, title: data.title}); return Promise.resolve(); };
}"""


def test_deel_je_badge_opens_the_share_sheet_with_the_image_where_it_can(page):
    member = UserFactory()
    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
    )
    award = UserBadgeFactory(user_challenge=card, badge=card.challenge.badges.first())
    sign_in(page, member)
    page.add_init_script(f"({SHARE_STUB})()")
    page.goto(page.base_url + "/dashboard")
    page.get_by_role("link", name="Deel je badge").click()
    page.wait_for_function("() => window.__shared.length === 1")
    [shared] = page.evaluate("() => window.__shared")
    assert shared["type"] == "image/png" and shared["size"] > 1000
    assert shared["name"].startswith("badge-") and shared["title"] == award.badge.name
    assert page.url.endswith("/dashboard")


def test_deel_je_badge_downloads_where_sharing_exists_but_not_for_files(page):
    member = UserFactory()
    card = UserChallenge.objects.create(
        user=member, challenge=Challenge.objects.get(target_dips=5), challenge_type="normal"
    )
    UserBadgeFactory(user_challenge=card, badge=card.challenge.badges.first())
    sign_in(page, member)
    page.add_init_script("navigator.canShare = () => false; navigator.share = () => Promise.reject(new Error('nee'));")
    page.goto(page.base_url + "/dashboard")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Deel je badge").click()
    assert re.fullmatch(r"badge-[a-z0-9-]+\.png", download_info.value.suggested_filename)
    assert page.url.endswith("/dashboard")


def test_a_member_joins_a_club_challenge_on_club_and_sees_the_progress_there(page):
    """ "Doe mee" on /club: back on /club with the progress, the dashboard's forms reused (next=/club)."""
    member = UserFactory(full_name="Marit Zwemmer")
    challenge = ClubChallengeFactory(name="Dip a Day December", kind=ClubChallenge.Kind.DAYS, target=5)
    sign_in(page, member)
    page.goto(page.base_url + "/club")
    card = page.locator("article.club-challenge", has_text="Dip a Day December")
    card.get_by_role("button", name="Doe mee").click()
    expect(page).to_have_url(re.compile(r"/club$"))
    expect(page.get_by_text("Je doet mee met Dip a Day December!")).to_be_visible()
    card = page.locator("article.club-challenge", has_text="Dip a Day December")
    expect(card).to_contain_text("0 van 5")
    expect(card.get_by_role("button", name="Niet meer meedoen")).to_be_visible()
    assert ClubChallengeEntry.objects.filter(user=member, club_challenge=challenge).exists()
    screenshot(page, "club-doe-mee")
