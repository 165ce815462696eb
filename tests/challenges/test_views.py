import datetime
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from apps.challenges.models import Challenge, ClubChallenge, Dip, DipBuddy, UserBadge, UserChallenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.core.page_cache import MEMBER, pages_changed
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    BadgeFactory,
    ChallengeFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    DipFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


def card_with(user, challenge, count):
    card = UserChallengeFactory(user=user, challenge=challenge)
    Dip.objects.bulk_create(
        [Dip(user=user, user_challenge=card, number=n, dip_date="2026-11-01") for n in range(1, count + 1)]
    )
    return card


def props(response):
    html = response.content.decode()
    start = html.index('id="stampcard-data"')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    return json.loads(body)


# --- access -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/dashboard", "/challenge"])
def test_anonymous_visitors_go_to_auth(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/auth")


@pytest.mark.parametrize("path", ["/challenge/start", "/challenge/stoppen"])
def test_anonymous_writes_go_to_auth_and_change_nothing(client, path, waterdieren):
    response = client.post(path, {"challenge_id": waterdieren.pk})
    assert response.status_code == 302 and response["Location"].startswith("/auth")
    assert not UserChallenge.objects.exists()


def test_anonymous_dip_gets_the_expired_session_message_as_json(client):
    response = client.post("/challenge/plons")
    assert response.status_code == 401
    assert response.json() == {
        "error": "Je sessie is verlopen. Log opnieuw in.",
        "code": "session_expired",
        "login_url": "/auth",
    }


def test_writes_need_post(member_client):
    assert member_client.get("/challenge/plons").status_code == 405
    assert member_client.get("/challenge/start").status_code == 405
    # GET /challenge/stoppen is the confirmation page (tests/challenges/test_stop_confirmation.py): it stops nothing.


def test_writes_need_a_csrf_token(member, waterdieren):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    response = client.post("/challenge/start", {"challenge_id": waterdieren.pk})
    assert response.status_code == 403
    assert "Laad de pagina opnieuw" in response.content.decode()
    assert not UserChallenge.objects.exists()
    # A dip that could count needs the token too. (Without a card it is refused before anything is read.)
    challenge_start(user=member, challenge_id=waterdieren.pk)
    response = client.post("/challenge/plons", HTTP_ACCEPT="application/json")
    assert response.status_code == 403 and "error" in response.json()
    assert not Dip.objects.exists()


# --- dashboard ---------------------------------------------------------------------------------------


def test_dashboard_welcomes_by_name_or_zwemmer(member_client, member):
    assert "Welkom, Marit Zwemmer!" in member_client.get("/dashboard").content.decode()
    member.full_name = ""  # a name the profile form refuses: written past the services, so they say so
    member.save()
    with transaction.atomic():
        pages_changed(MEMBER, user_ids=[member.pk])
    assert "Welkom, Zwemmer!" in member_client.get("/dashboard").content.decode()


def test_dashboard_without_challenge_offers_waterdieren_and_special_challenges(member_client):
    html = member_client.get("/dashboard").content.decode()
    assert "Waterdieren Stempelkaart" in html and "Start Nu" in html
    assert "Bijzondere Challenges" in html and "Eerste Plonsen" in html and "Start challenge" in html
    for milestone in ["5", "10", "25", "50", "75", "100"]:
        assert f"<span>{milestone}</span>" in html
    assert "Binnenkort meer bijzondere challenges..." not in html


def test_dashboard_says_more_special_challenges_are_coming_when_there_are_none(member_client):
    Challenge.objects.exclude(category=Challenge.Category.WATERDIEREN).update(is_active=False)
    assert "Binnenkort meer bijzondere challenges..." in member_client.get("/dashboard").content.decode()


def test_dashboard_shows_the_active_challenge_and_hides_the_start_cards(member_client, member, waterdieren):
    card_with(member, waterdieren, 3)
    html = member_client.get("/dashboard").content.decode()
    assert "Je actieve challenge(s)" in html and "Doel: 100 plonsen" in html and "Naar stempelkaart" in html
    assert "Start Nu" not in html and "Start challenge" not in html


def test_dashboard_shows_special_challenges_to_a_member_with_a_card(member_client, member, waterdieren):
    """Issue 25: special challenges made by admins are visible with a card under way (starting one waits)."""
    card_with(member, waterdieren, 3)
    ChallengeFactory(name="Winterwonder", category=Challenge.Category.SPECIAL, target_dips=30)
    html = member_client.get("/dashboard").content.decode()
    assert "Bijzondere Challenges" in html and "Winterwonder" in html
    assert "Je kunt deze challenge starten zodra je actieve challenge klaar is." in html
    assert "Start challenge" not in html


def test_admin_button_only_for_admins(client, member, admin_user):
    client.force_login(member)
    assert ">Admin</a>" not in client.get("/dashboard").content.decode()
    client.force_login(admin_user)
    assert ">Admin</a>" in client.get("/dashboard").content.decode()


def test_dashboard_badges_newest_first_grouped_and_deduplicated(member_client, member, waterdieren):
    import datetime

    from django.utils import timezone

    old = card_with(member, waterdieren, 0)
    old.is_active = False
    old.save()
    waterslak, kikker = waterdieren.badges.order_by("milestone_dips")[:2]
    base = timezone.make_aware(datetime.datetime(2026, 11, 1, 12))
    UserBadge.objects.create(user=member, badge=waterslak, user_challenge=old, earned_at=base)
    new = card_with(member, waterdieren, 0)
    UserBadge.objects.create(
        user=member, badge=waterslak, user_challenge=new, earned_at=base + datetime.timedelta(days=19)
    )
    UserBadge.objects.create(
        user=member, badge=kikker, user_challenge=new, earned_at=base + datetime.timedelta(days=20)
    )
    html = member_client.get("/dashboard").content.decode()
    assert "Je verdiende badges (2)" in html
    assert html.index("Kikker") < html.index("Waterslak")
    assert "21 november 2026" in html and "20 november 2026" in html and ">1 november 2026<" not in html


def test_start_challenge_redirects_to_the_stamp_card_with_a_message(member_client, member, waterdieren):
    response = member_client.post("/challenge/start", {"challenge_id": waterdieren.pk}, follow=True)
    assert response.redirect_chain[-1][0] == "/challenge"
    assert "Challenge gestart!" in response.content.decode()
    assert UserChallenge.objects.get(user=member).challenge == waterdieren


def test_second_waterdieren_card_is_refused_with_the_spec_message(member_client, member, waterdieren):
    card_with(member, waterdieren, 1)
    response = member_client.post("/challenge/start", {"challenge_id": waterdieren.pk}, follow=True)
    assert "Je hebt al een actieve Waterdieren Stempelkaart!" in response.content.decode()
    assert UserChallenge.objects.filter(user=member).count() == 1


@pytest.mark.parametrize("value", ["", "abc", "99999", "-1"])
def test_start_with_a_bad_challenge_id_gives_a_message(member_client, value):
    response = member_client.post("/challenge/start", {"challenge_id": value}, follow=True)
    assert response.status_code == 200 and "niet beschikbaar" in response.content.decode()
    assert not UserChallenge.objects.exists()


@pytest.mark.parametrize("size", [1, 100])
def test_dashboard_query_budget(member_client, member, waterdieren, size, django_assert_max_num_queries):
    card = card_with(member, waterdieren, min(size, 100))
    for badge in waterdieren.badges.all()[: min(size, 6)]:
        UserBadge.objects.create(user=member, badge=badge, user_challenge=card)
    for _ in range(size):
        special = ChallengeFactory()
        BadgeFactory(challenge=special, milestone_dips=1)
    # Dated club challenges of every kind, joined and not, with other members' dips in their club goals.
    today = timezone.localdate()
    for index in range(min(size, 20)):
        kind = [ClubChallenge.Kind.EVERY_DAY, ClubChallenge.Kind.DAYS, ClubChallenge.Kind.CLUB_GOAL][index % 3]
        club = ClubChallengeFactory(kind=kind, starts_on=today, ends_on=today + datetime.timedelta(days=9))
        ClubChallengeEntryFactory(user=member, club_challenge=club, completed_at=timezone.now() if index % 2 else None)
        for other in ClubChallengeEntryFactory.create_batch(min(size, 5), club_challenge=club):
            DipFactory(user=other.user, user_challenge=None, dip_date=today)
    # The catalogue, the member's cards, badges, club challenges (with their progress) and club badges, the
    # events, the club messages, and samen plonsen's two blocks (afspraken, buddy requests); and the summary of
    # her awards that keys the badges' section (one query here, so that an ordinary dip keeps the tiles cached);
    # her open waitlist offers (issue 34 §6: at the top). Her card holds a dip: whether she ever dipped costs nothing.
    with django_assert_max_num_queries(16):
        assert member_client.get("/dashboard").status_code == 200


# --- challenge page ----------------------------------------------------------------------------------


def test_challenge_without_active_card_redirects_to_dashboard(member_client):
    response = member_client.get("/challenge")
    assert response.status_code == 302 and response["Location"] == "/dashboard"


def test_challenge_page_contains_the_card_data_in_its_first_html(member_client, member, waterdieren):
    card = card_with(member, waterdieren, 12)
    UserBadge.objects.create(user=member, badge=waterdieren.badges.get(milestone_dips=5), user_challenge=card)
    response = member_client.get("/challenge")
    html = response.content.decode()
    assert "Terug" in html and "Challenge Stoppen" in html
    data = props(response)
    assert data["dipCount"] == 12 and data["challenge"]["targetDips"] == waterdieren.target_dips
    milestones = waterdieren.badges.order_by("milestone_dips").values_list("milestone_dips", flat=True)
    assert data["milestones"] == list(milestones)
    assert [b["earned"] for b in data["badges"]] == [True, False, False, False, False, False]
    assert len(data["recentDips"]) == 10 and data["recentDips"][0]["number"] == 12
    assert data["endpoints"]["registerDip"] == "/challenge/plons"
    assert "<script>" not in html.replace('<script id="stampcard-data" type="application/json">', "")


def test_the_island_gets_the_servers_photo_limit_in_its_props(member_client, member, waterdieren, settings):
    card_with(member, waterdieren, 1)
    settings.PHOTO_MAX_BYTES = 4 * 1024 * 1024
    assert props(member_client.get("/challenge"))["photoMaxBytes"] == 4 * 1024 * 1024


def test_the_island_gets_the_stored_photo_size_and_the_members_mark_in_its_props(member_client, member, waterdieren):
    from apps.challenges.photos import MAX_SIDE

    card_with(member, waterdieren, 1)
    response = member_client.get("/challenge")
    # The shrink on the phone follows the server's one rule; the queue's owner is the mark of the page.
    assert props(response)["photoMaxSide"] == MAX_SIDE
    assert props(response)["member"] == response["X-Koud-Member"]


def test_challenge_page_escapes_hostile_text(member_client, member):
    evil = ChallengeFactory(name="</script><script>alert(1)</script>", description="<img src=x onerror=alert(1)>")
    card_with(member, evil, 0)
    html = member_client.get("/challenge").content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html


@pytest.mark.parametrize("size", [1, 100])
def test_challenge_query_budget(member_client, member, waterdieren, size, django_assert_max_num_queries):
    card = card_with(member, waterdieren, size)
    for badge in waterdieren.badges.filter(milestone_dips__lte=size):
        UserBadge.objects.create(user=member, badge=badge, user_challenge=card)
    Dip.objects.filter(user_challenge=card).update(photo="1/x.jpg", thumbnail="1/x.thumb.jpg")
    # Buddies on every dip: clubmates the member named, and a clubmate's dip the member put on their card.
    mates = UserFactory.create_batch(min(size, 3))
    own = list(Dip.objects.filter(user_challenge=card))
    DipBuddy.objects.bulk_create([DipBuddy(dip=dip, buddy=mate) for dip in own for mate in mates])
    theirs = DipFactory(user=mates[0], user_challenge=None, number=1)
    DipBuddy.objects.create(
        dip=theirs, buddy=member, status=DipBuddy.Status.ACCEPTED, buddy_dip=own[0], decided_at=timezone.now()
    )
    # Two more for samen plonsen's part (apps.together): the member's afspraak of about now and who went along.
    # The buddies of the card's dips (the line's "Met ...") are read in one query, within the same budget.
    with django_assert_max_num_queries(10):
        response = member_client.get("/challenge")
    assert response.status_code == 200
    line = next(dip for dip in props(response)["recentDips"] if dip["id"] == own[0].pk)["buddiesDisplay"]
    assert line.startswith("Met ") and mates[0].display_name in line


# --- registering a dip -------------------------------------------------------------------------------


def test_register_dip_returns_what_happened(member_client, member, waterdieren):
    card_with(member, waterdieren, 4)
    response = member_client.post("/challenge/plons")
    assert response.status_code == 201
    data = response.json()
    assert data["dipCount"] == 5 and data["celebration"] == "milestone" and not data["completed"]
    assert data["badge"]["name"] == "Waterslak" and data["badge"]["earned"]
    assert [t["text"] for t in data["toasts"]] == ["Plons toegevoegd!", "Badge verdiend: Waterslak!"]
    assert data["toasts"][1]["durationMs"] == 5000


def test_completing_waterdieren_says_so_for_ten_seconds(member_client, member, waterdieren):
    card_with(member, waterdieren, 99)
    data = member_client.post("/challenge/plons").json()
    assert data["completed"] and data["celebration"] == "completion" and data["completedAtDisplay"]
    assert {"text": "Waterdieren Stempelkaart voltooid! Alle badges verzameld!", "durationMs": 10000} in data["toasts"]
    refused = member_client.post("/challenge/plons")
    assert refused.status_code == 409
    assert refused.json()["error"] == "Deze challenge is voltooid. Je kunt geen nieuwe plonsen meer toevoegen."


def test_register_dip_with_a_photo_and_see_it_privately(client, member, other_member, admin_user, waterdieren):
    card_with(member, waterdieren, 0)
    client.force_login(member)
    upload = SimpleUploadedFile("zee.jpg", image_bytes("JPEG", size=(300, 200)), content_type="image/jpeg")
    data = client.post("/challenge/plons", {"photo": upload}).json()
    photo_url, thumb_url = data["dip"]["photoUrl"], data["dip"]["thumbnailUrl"]
    assert photo_url == f"/foto/{data['dip']['id']}"
    owner_view = client.get(photo_url)
    assert owner_view.status_code == 200 and owner_view["Content-Type"] == "image/jpeg"
    assert owner_view["Cache-Control"].startswith("private")
    assert b"".join(owner_view.streaming_content)[:2] == b"\xff\xd8"
    assert client.get(thumb_url).status_code == 200

    client.force_login(other_member)
    assert client.get(photo_url).status_code == 404
    assert client.get(thumb_url).status_code == 404
    client.force_login(admin_user)
    assert client.get(photo_url).status_code == 200
    client.logout()
    assert client.get(photo_url)["Location"].startswith("/auth")


def test_photos_have_no_public_url(settings):
    from django.core.files.storage import storages

    assert settings.STORAGES["photos"]["OPTIONS"]["base_url"] is None
    assert not str(storages["photos"].location).startswith(str(settings.STATIC_ROOT))


def test_dip_without_photo_has_no_photo_url(member_client, member, waterdieren):
    card_with(member, waterdieren, 0)
    data = member_client.post("/challenge/plons").json()
    assert data["dip"]["photoUrl"] is None
    assert member_client.get(f"/foto/{data['dip']['id']}").status_code == 404


def test_a_non_image_photo_is_refused_and_nothing_is_stored(member_client, member, waterdieren):
    card = card_with(member, waterdieren, 0)
    fake = SimpleUploadedFile("foto.jpg", b"<?php echo 'hi'; ?>", content_type="image/jpeg")
    response = member_client.post("/challenge/plons", {"photo": fake})
    assert response.status_code == 400 and "geen foto" in response.json()["error"]
    assert card.dips.count() == 0


def test_a_huge_upload_is_refused_before_it_is_read(member_client, member, waterdieren, settings):
    card = card_with(member, waterdieren, 0)
    settings.PHOTO_MAX_BYTES = 10_000
    big = SimpleUploadedFile("groot.jpg", b"\xff\xd8" + b"0" * 200_000, content_type="image/jpeg")
    response = member_client.post("/challenge/plons", {"photo": big})
    assert response.status_code == 413 and "te groot" in response.json()["error"]
    assert card.dips.count() == 0


def test_register_dip_without_active_challenge_is_a_clear_409(member_client):
    response = member_client.post("/challenge/plons")
    assert response.status_code == 409 and response.json()["error"] == "Je hebt geen actieve challenge."


# --- stopping ----------------------------------------------------------------------------------------


def test_stop_deletes_and_says_so(member_client, member, waterdieren):
    card = card_with(member, waterdieren, 6)
    UserBadgeFactory(user_challenge=card, badge=waterdieren.badges.get(milestone_dips=5))
    response = member_client.post("/challenge/stoppen", {"user_challenge_id": card.pk}, follow=True)
    assert response.redirect_chain[-1][0] == "/dashboard"
    assert "Challenge gestopt en volledig verwijderd!" in response.content.decode()
    assert not UserChallenge.objects.filter(pk=card.pk).exists() and not Dip.objects.filter(user=member).exists()


def test_another_member_cannot_stop_my_challenge(client, member, other_member, waterdieren):
    card = card_with(member, waterdieren, 2)
    client.force_login(other_member)
    response = client.post("/challenge/stoppen", {"user_challenge_id": card.pk}, follow=True)
    assert "Je hebt geen toestemming om deze challenge te verwijderen." in response.content.decode()
    assert UserChallenge.objects.filter(pk=card.pk).exists() and card.dips.count() == 2


def test_stopping_with_an_expired_session_says_so_and_leads_back_after_sign_in(client, member, waterdieren):
    card = card_with(member, waterdieren, 1)
    response = client.post("/challenge/stoppen", {"user_challenge_id": card.pk}, follow=True)
    assert response.redirect_chain[-1][0] == "/auth?next=/challenge"
    assert "Je sessie is verlopen. Log opnieuw in." in response.content.decode()
    assert UserChallenge.objects.filter(pk=card.pk).exists()


def test_stopping_a_challenge_that_is_already_gone_gives_the_general_message(member_client, member, waterdieren):
    card_id = card_with(member, waterdieren, 1).pk
    UserChallenge.objects.filter(pk=card_id).delete()
    response = member_client.post("/challenge/stoppen", {"user_challenge_id": card_id}, follow=True)
    assert "Er ging iets mis bij het stoppen van de challenge." in response.content.decode()


def test_an_admin_cannot_stop_a_members_challenge_through_the_member_endpoint(admin_client, member, waterdieren):
    card = card_with(member, waterdieren, 1)
    admin_client.post("/challenge/stoppen", {"user_challenge_id": card.pk})
    assert UserChallenge.objects.filter(pk=card.pk).exists()


def test_dips_register_only_on_my_own_card(client, member, other_member, waterdieren):
    mine = card_with(member, waterdieren, 0)
    theirs = card_with(other_member, waterdieren, 0)
    client.force_login(member)
    # Naming another member's card is refused (a queued tap names the card it was tapped on).
    assert client.post("/challenge/plons", {"user_challenge_id": theirs.pk}).status_code == 409
    assert client.post("/challenge/plons").status_code == 201
    assert mine.dips.count() == 1 and theirs.dips.count() == 0


def test_service_outcome_and_view_agree_on_photo_urls(member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    outcome = dip_register(user=member, photo=ProcessedPhoto(full=b"a", thumbnail=b"b"))
    assert reverse("dip_photo", args=[outcome.dip.pk]) == f"/foto/{outcome.dip.pk}"


def test_a_retry_with_the_same_request_id_is_answered_without_a_second_dip(member_client, member, waterdieren):
    import uuid

    card = card_with(member, waterdieren, 0)
    request_id = str(uuid.uuid4())
    first = member_client.post("/challenge/plons", {"request_id": request_id})
    again = member_client.post("/challenge/plons", {"request_id": request_id})
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["dip"]["id"] == first.json()["dip"]["id"] and again.json()["dipCount"] == 1
    assert card.dips.count() == 1


def test_a_malformed_request_id_is_refused(member_client, member, waterdieren):
    card = card_with(member, waterdieren, 0)
    response = member_client.post("/challenge/plons", {"request_id": "'; DROP TABLE dips; --"})
    assert response.status_code == 400 and "Laad de pagina opnieuw" in response.json()["error"]
    assert card.dips.count() == 0


def test_recent_dips_show_the_time_so_two_on_one_day_differ(member_client, member, waterdieren):
    """Issue 28 §6: the date alone made two dips of one day look the same."""
    import datetime
    import zoneinfo

    amsterdam = zoneinfo.ZoneInfo("Europe/Amsterdam")
    card = UserChallengeFactory(user=member, challenge=waterdieren)
    for number, hour in ((1, 7), (2, 18)):
        Dip.objects.create(
            user=member,
            user_challenge=card,
            number=number,
            dip_date="2026-11-01",
            created_at=datetime.datetime(2026, 11, 1, hour, 5, tzinfo=amsterdam),
        )
    shown = [dip["dipDateDisplay"] for dip in props(member_client.get("/challenge"))["recentDips"]]
    assert shown == ["1 november 2026, 18:05", "1 november 2026, 07:05"]


def test_the_first_html_has_the_cards_button_and_a_done_card_has_none(member_client, member, waterdieren):
    """ "Plons registreren" is painted with the page, not only once the island ran (issue 37 §4): disabled
    until the island replaces it, since only the island can send a dip."""
    card = card_with(member, waterdieren, 3)
    html = member_client.get("/challenge").content.decode()
    root = html.split('<div id="stampcard-root"', 1)[1].split("</div>", 1)[0]
    assert re.search(r"<button [^>]*disabled[^>]*>Plons registreren</button>", root)
    assert "Voeg plons toe" in root
    with transaction.atomic():
        UserChallenge.objects.filter(pk=card.pk).update(completed_at=timezone.now())
        pages_changed(MEMBER, user_ids=[member.pk])
    done = member_client.get("/challenge").content.decode()
    assert "Plons registreren" not in done.split('<div id="stampcard-root"', 1)[1].split("</div>", 1)[0]
