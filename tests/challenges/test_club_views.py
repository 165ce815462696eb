"""Club challenges on the dashboard ("Doe mee", progress, "Plons registreren" without a card) and on /admin."""

import datetime

import pytest
from django.utils import timezone

from apps.challenges.models import Challenge, ClubChallenge, ClubChallengeEntry, Dip
from apps.challenges.services.dips import dip_register
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    DipFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def page(client) -> str:
    return client.get("/dashboard").content.decode()


# --- the dashboard --------------------------------------------------------------------------------------------


def test_a_member_without_a_card_joins_and_registers_a_dip_from_the_dashboard(member_client, member):
    challenge = ClubChallengeFactory(name="Dip a Day December", kind=ClubChallenge.Kind.DAYS, target=5)
    html = page(member_client)
    assert "Clubchallenges" in html and "Dip a Day December" in html and "Doe mee" in html
    assert "Plons registreren" not in html  # nothing to count for yet

    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk}, follow=True)
    html = response.content.decode()
    assert "Je doet mee met Dip a Day December!" in html
    assert "0 van 5</strong> dagen gedaan · nog 10 dagen" in html and "Plons registreren" in html

    response = member_client.post("/challenge/club/plons", follow=True)
    html = response.content.decode()
    assert "Plons toegevoegd!" in html and "1 van 5</strong> dagen gedaan" in html
    assert Dip.objects.get(user=member).user_challenge is None


def test_joining_twice_says_so_and_keeps_one_entry(member_client, member):
    challenge = ClubChallengeFactory(name="Samen")
    member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk})
    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk}, follow=True)
    assert "Je doet al mee met Samen." in response.content.decode()
    assert ClubChallengeEntry.objects.filter(user=member).count() == 1


@pytest.mark.parametrize("value", ["", "abc", "٣", "99999999"])
def test_a_wrong_challenge_id_gets_a_dutch_message(member_client, value):
    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": value}, follow=True)
    assert response.status_code == 200 and "Deze clubchallenge bestaat niet (meer)." in response.content.decode()
    response = member_client.post("/challenge/club/stoppen", {"club_challenge_id": value}, follow=True)
    assert response.status_code == 200


def test_leaving_from_the_dashboard(member_client, member):
    entry = ClubChallengeEntryFactory(user=member)
    response = member_client.post(
        "/challenge/club/stoppen", {"club_challenge_id": entry.club_challenge_id}, follow=True
    )
    assert "Je doet niet meer mee met deze clubchallenge." in response.content.decode()
    assert not ClubChallengeEntry.objects.exists()


def test_a_dip_without_a_running_challenge_is_refused_on_the_dashboard(member_client):
    response = member_client.post("/challenge/club/plons", follow=True)
    assert "Je hebt geen actieve challenge." in response.content.decode() and not Dip.objects.exists()


def test_completion_shows_the_badge_and_asks_for_the_celebration(member_client, member):
    challenge = ClubChallengeFactory(name="Eendaagse", kind=ClubChallenge.Kind.DAYS, target=1)
    ClubChallengeEntryFactory(user=member, club_challenge=challenge)
    html = member_client.post("/challenge/club/plons", follow=True).content.decode()
    assert "Clubchallenge voltooid: Eendaagse!" in html
    assert 'id="celebration-data"' in html
    assert "Voltooid op" in html and "Je verdiende badges (1)" in html
    assert "Niet meer meedoen" not in html
    # The next visit has no message: no celebration again.
    assert 'id="celebration-data"' not in page(member_client)


def test_club_goal_shows_the_total_and_how_many_take_part_and_no_names(member_client, member):
    goal = ClubChallengeFactory(name="Samen 500", kind=ClubChallenge.Kind.CLUB_GOAL, target=500)
    others = [ClubChallengeEntryFactory(club_challenge=goal, user=UserFactory(full_name=f"Lid {i}")) for i in range(2)]
    for entry in others:
        DipFactory(user=entry.user, user_challenge=None, number=1)
    html = page(member_client)
    assert "Samen <strong>2 van 500</strong> plonsen · 2 doen mee" in html
    assert "Lid 0" not in html and "Lid 1" not in html


def test_the_dashboard_shows_others_dips_in_a_club_goal_at_once(member_client, member):
    """The dashboard is cached: another member's dip moves the club challenges' scope."""
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=10)
    ClubChallengeEntryFactory(club_challenge=goal, user=member)
    other = ClubChallengeEntryFactory(club_challenge=goal).user
    assert "Samen <strong>0 van 10</strong>" in page(member_client)
    dip_register(user=other)
    assert "Samen <strong>1 van 10</strong>" in page(member_client)


def test_a_member_with_a_card_registers_on_the_stamp_card_not_the_dashboard(member_client, member):
    UserChallengeFactory(user=member, challenge=Challenge.objects.get(name="Waterdieren Stempelkaart"))
    ClubChallengeEntryFactory(user=member)
    html = page(member_client)
    assert "Naar stempelkaart" in html and "Plons registreren" not in html


def test_ended_challenges_leave_the_dashboard(member_client):
    ClubChallengeFactory(
        name="Oud nieuws", starts_on=timezone.localdate() - 9 * DAY, ends_on=timezone.localdate() - DAY
    )
    assert "Oud nieuws" not in page(member_client)


def test_the_stamp_card_endpoint_takes_a_dip_without_a_card(member_client, member):
    ClubChallengeEntryFactory(user=member)
    response = member_client.post("/challenge/plons", {"water_temperature": "6"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["message"] == "Plons toegevoegd!" and body["completedAt"] is None
    assert Dip.objects.get(user=member).water_temperature == 6


def test_the_undo_endpoint_answers_without_a_card_for_a_dip_without_one(member_client, member):
    ClubChallengeEntryFactory(user=member)
    dip = dip_register(user=member).dip
    response = member_client.post(f"/challenge/plons/{dip.pk}/ongedaan")
    assert response.status_code == 200 and response.json()["card"] is None
    assert not Dip.objects.exists()


# --- /admin ---------------------------------------------------------------------------------------------------


def form(**overrides):
    return {
        "name": "Dip a Day December",
        "description": "Elke dag een plons.",
        "starts_on": "2026-12-01",
        "ends_on": "2026-12-31",
        "kind": ClubChallenge.Kind.EVERY_DAY,
        "target": "",
        **overrides,
    }


def test_the_admin_page_links_to_club_challenges(admin_client):
    assert "/admin/clubchallenges" in admin_client.get("/admin").content.decode()


def test_an_admin_creates_a_club_challenge_with_badge_art(admin_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    art = SimpleUploadedFile("badge.png", image_bytes("PNG"), content_type="image/png")
    response = admin_client.post(
        "/admin/clubchallenges", form(kind=ClubChallenge.Kind.DAYS, target="20", badge_image_upload=art), follow=True
    )
    html = response.content.decode()
    assert "Clubchallenge Dip a Day December aangemaakt." in html and "20 dagen" in html
    challenge = ClubChallenge.objects.get()
    assert challenge.target == 20 and challenge.badge_image_url


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"ends_on": "2026-11-01"}, "De einddatum ligt vóór de begindatum."),
        ({"starts_on": "morgen"}, "Vul een geldige datum in."),
        ({"kind": ClubChallenge.Kind.CLUB_GOAL}, "Vul het clubdoel in"),
        ({"kind": ClubChallenge.Kind.DAYS, "target": "99"}, "hoogstens 31"),
        ({"kind": "x"}, "Selecteer een geldige keuze"),
        ({"target": "12abc"}, "Vul een heel getal in."),
        ({"name": ""}, "Dit veld is verplicht."),
    ],
)
def test_wrong_input_on_the_admin_form_is_answered_in_dutch(admin_client, overrides, message):
    response = admin_client.post("/admin/clubchallenges", form(**overrides))
    assert response.status_code == 400 and message in response.content.decode()
    assert not ClubChallenge.objects.exists()


def test_svg_badge_art_is_refused(admin_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    svg = SimpleUploadedFile("x.svg", b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", content_type="image/svg+xml")
    response = admin_client.post("/admin/clubchallenges", form(badge_image_upload=svg))
    assert response.status_code == 400 and "SVG-bestanden worden niet geaccepteerd" in response.content.decode()


def test_the_admin_list_shows_counts_and_deletes_only_empty_ones(admin_client):
    goal = ClubChallengeFactory(name="Samen", kind=ClubChallenge.Kind.CLUB_GOAL, target=40)
    entry = ClubChallengeEntryFactory(club_challenge=goal)
    DipFactory(user=entry.user, user_challenge=None, number=1)
    empty = ClubChallengeFactory(name="Leeg")
    html = admin_client.get("/admin/clubchallenges").content.decode()
    assert "1 doet mee · 0 voltooid · samen 1 van 40 plonsen" in html
    response = admin_client.post("/admin/clubchallenges/verwijderen", {"club_challenge_id": goal.pk}, follow=True)
    assert "doen al leden mee" in response.content.decode()
    response = admin_client.post("/admin/clubchallenges/verwijderen", {"club_challenge_id": empty.pk}, follow=True)
    assert "Clubchallenge verwijderd." in response.content.decode()
    assert list(ClubChallenge.objects.values_list("name", flat=True)) == ["Samen"]


def test_members_and_bare_admins_cannot_reach_the_admin_page(member_client, bare_admin_client):
    for client in (member_client, bare_admin_client):
        assert client.get("/admin/clubchallenges").status_code == 302
        assert client.post("/admin/clubchallenges", form()).status_code == 302
    assert not ClubChallenge.objects.exists()


@pytest.mark.parametrize("size", [1, 60])
def test_admin_list_query_budget(admin_client, size, django_assert_max_num_queries):
    for index in range(size):
        kind = [ClubChallenge.Kind.EVERY_DAY, ClubChallenge.Kind.DAYS, ClubChallenge.Kind.CLUB_GOAL][index % 3]
        challenge = ClubChallengeFactory(kind=kind)
        for entry in ClubChallengeEntryFactory.create_batch(min(size, 3), club_challenge=challenge):
            DipFactory(user=entry.user, user_challenge=None, number=1)
    with django_assert_max_num_queries(8):
        assert admin_client.get("/admin/clubchallenges").status_code == 200


# --- the account goes, and its club challenge data with it ----------------------------------------------------


def test_deleting_an_account_removes_its_club_entries_and_dips_without_a_card_and_moves_the_totals(
    member, client, django_capture_on_commit_callbacks
):
    from django.core.files.base import ContentFile

    from apps.accounts.removal import account_delete
    from apps.challenges.models import photo_storage
    from tests.factories import DEFAULT_PASSWORD

    goal = ClubChallengeFactory(name="Samen 500", kind=ClubChallenge.Kind.CLUB_GOAL, target=500)
    leaver = UserFactory()
    ClubChallengeEntryFactory(user=member, club_challenge=goal)
    ClubChallengeEntryFactory(user=leaver, club_challenge=goal)
    photo = photo_storage().save(f"{leaver.pk}/los.jpg", ContentFile(image_bytes()))
    DipFactory(user=leaver, user_challenge=None, number=1, photo=photo)
    client.force_login(member)
    assert "Samen <strong>1 van 500</strong> plonsen · 2 doen mee" in page(client)  # now in the page cache

    with django_capture_on_commit_callbacks(execute=True):
        account_delete(user=leaver, password=DEFAULT_PASSWORD)

    assert not ClubChallengeEntry.objects.filter(user_id=leaver.pk).exists()
    assert not Dip.objects.filter(user_id=leaver.pk).exists() and not photo_storage().exists(photo)
    assert "Samen <strong>0 van 500</strong> plonsen · 1 doet mee" in page(client)


# --- the Django admin goes through the same services ----------------------------------------------------------


def test_the_django_admin_makes_a_club_challenge_through_the_service_with_its_rules(admin_client):
    url = "/django-admin/challenges/clubchallenge/add/"
    wrong = admin_client.post(url, form(kind=ClubChallenge.Kind.DAYS, target="40"))
    assert wrong.status_code == 200 and "hoogstens 31" in wrong.content.decode()
    assert not ClubChallenge.objects.exists()
    made = admin_client.post(url, form())
    assert made.status_code == 302 and ClubChallenge.objects.get().kind == ClubChallenge.Kind.EVERY_DAY


def test_the_django_admin_joins_a_member_and_deletes_through_leave_and_delete(admin_client, member):
    challenge = ClubChallengeFactory()
    response = admin_client.post(
        "/django-admin/challenges/clubchallengeentry/add/", {"club_challenge": challenge.pk, "user": member.pk}
    )
    assert response.status_code == 302
    entry = ClubChallengeEntry.objects.get(user=member)
    refused = admin_client.post(f"/django-admin/challenges/clubchallenge/{challenge.pk}/delete/", {"post": "yes"})
    assert ClubChallenge.objects.filter(pk=challenge.pk).exists(), refused
    admin_client.post(f"/django-admin/challenges/clubchallengeentry/{entry.pk}/delete/", {"post": "yes"})
    assert not ClubChallengeEntry.objects.exists()
    admin_client.post(f"/django-admin/challenges/clubchallenge/{challenge.pk}/delete/", {"post": "yes"})
    assert not ClubChallenge.objects.exists()


@pytest.mark.parametrize(
    ("target", "lands"),
    [
        ("/club#clubchallenges", "/club#clubchallenges"),
        ("https://elders.example/", "/dashboard#clubchallenges"),
        ("//elders.example/", "/dashboard#clubchallenges"),
        ("", "/dashboard#clubchallenges"),
    ],
)
def test_doe_mee_goes_back_to_the_page_it_was_on_but_never_elsewhere(member_client, target, lands):
    challenge = ClubChallengeFactory()
    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk, "next": target})
    assert response.status_code == 302 and response["Location"] == lands


def test_a_mis_tap_without_a_card_is_undone_from_the_dashboard_right_after(member_client, member):
    ClubChallengeEntryFactory(user=member)
    html = member_client.post("/challenge/club/plons", follow=True).content.decode()
    dip = Dip.objects.get(user=member)
    assert "Ongedaan maken" in html and f'name="dip_id" value="{dip.pk}"' in html
    assert "Ongedaan maken" not in page(member_client)  # the offer is for the moment after the tap only
    response = member_client.post("/challenge/club/plons/ongedaan", {"dip_id": dip.pk}, follow=True)
    assert "Plons ongedaan gemaakt." in response.content.decode() and not Dip.objects.exists()
    again = member_client.post("/challenge/club/plons/ongedaan", {"dip_id": dip.pk}, follow=True)
    assert "Deze plons bestaat niet (meer)." in again.content.decode()


def test_a_dip_on_the_card_from_the_dashboard_offers_no_undo_there(member_client, member):
    UserChallengeFactory(user=member, challenge=Challenge.objects.get(name="Waterdieren Stempelkaart"))
    html = member_client.post("/challenge/club/plons", follow=True).content.decode()
    assert "Plons toegevoegd!" in html and "Ongedaan maken" not in html


def test_someone_elses_dip_cannot_be_undone(member_client, other_member):
    ClubChallengeEntryFactory(user=other_member)
    dip = dip_register(user=other_member).dip
    response = member_client.post("/challenge/club/plons/ongedaan", {"dip_id": dip.pk}, follow=True)
    assert "Deze plons bestaat niet (meer)." in response.content.decode() and Dip.objects.filter(pk=dip.pk).exists()
