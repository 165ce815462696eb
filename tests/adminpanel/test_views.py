import json

import pytest
from django.core.files.storage import storages
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.accounts.models import User
from apps.adminpanel.selectors import MESSAGE_PHOTOS_BAD_CURSOR
from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.events.models import EventParticipant
from apps.invitations.models import Invitation
from tests.factories import DipFactory, EventParticipantFactory, InvitationFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db

JSON_GETS = ["/admin/api/fotos", "/admin/api/uitnodigingen", "/admin/api/gebruikers"]


def post_json(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


# --- access: anonymous, member, admin ----------------------------------------------------------------


def test_admin_page_sends_anonymous_to_auth(client):
    response = client.get("/admin")
    assert response.status_code == 302 and response["Location"].startswith("/auth")


def test_admin_page_sends_members_to_the_dashboard_with_a_message(member_client):
    response = member_client.get("/admin", follow=True)
    assert response.redirect_chain[-1][0] == "/dashboard"
    assert "Je hebt geen admin rechten" in response.content.decode()


@pytest.mark.parametrize("url", JSON_GETS)
def test_json_endpoints_refuse_anonymous_and_members(client, member, url):
    response = client.get(url)
    assert response.status_code == 401 and response.json()["error"] == "Sessie verlopen, log opnieuw in"
    client.force_login(member)
    response = client.get(url)
    assert response.status_code == 403 and response.json() == {
        "error": "Je hebt geen admin rechten",
        "code": "not_admin",
    }


@pytest.mark.parametrize(
    "url",
    [
        "/admin/api/uitnodigingen/nieuw",
        "/admin/api/uitnodigingen/bulk",
        "/admin/api/uitnodigingen/1/verwijderen",
        "/admin/api/gebruikers/1/verwijderen",
    ],
)
def test_json_writes_refuse_members_and_change_nothing(client, member, url):
    invitation = InvitationFactory()
    victim = UserFactory()
    client.force_login(member)
    response = post_json(
        client,
        url.replace("/1/", f"/{invitation.pk if 'uitnod' in url else victim.pk}/"),
        {"email": "x@example.nl", "text": "a@example.nl"},
    )
    assert response.status_code == 403
    assert Invitation.objects.count() == 1 and User.objects.filter(pk=victim.pk).exists()


def test_csv_export_refuses_members(member_client):
    response = member_client.get("/admin/nieuwsbrief.csv")
    assert response.status_code == 302 and response["Location"] == "/dashboard"


# --- the page ----------------------------------------------------------------------------------------


def test_admin_page_shows_totals_and_sections(admin_client, member):
    card = UserChallengeFactory(user=member)
    DipFactory(user_challenge=card)
    member.newsletter_consent = True
    member.save()
    html = admin_client.get("/admin").content.decode()
    for text in [
        "Totaal gebruikers",
        "Actieve challenges",
        "Totaal plonsen",
        "Foto collage",
        "Uitnodigingsbeheer",
        "Nieuwsbrief beheer",
        "Gebruikersbeheer",
        "Exporteer Excel",
        "Plonsen deze week",
        "Nieuwe leden deze maand",
        "Fysieke badges",
        "Challenges beheren",
        "/django-admin/",
    ]:
        assert text in html
    assert "Binnenkort" not in html  # all four promised features are built
    assert '<p class="stat-value" data-admin-stat="users">2</p>' in html  # admin + member
    assert "<strong>1</strong> abonnee " in html


@pytest.mark.parametrize("size", [1, 500])
def test_admin_page_and_endpoints_have_fixed_query_budgets(admin_client, size, django_assert_max_num_queries):
    users = UserFactory.create_batch(size, newsletter_consent=True)
    challenge = Challenge.objects.get(target_dips=5)
    cards = UserChallenge.objects.bulk_create(
        [UserChallenge(user=u, challenge=challenge, challenge_type="normal") for u in users]
    )
    Dip.objects.bulk_create(
        [Dip(user=c.user, user_challenge=c, number=1, dip_date="2026-11-01", photo=f"{c.user_id}/a.jpg") for c in cards]
    )
    InvitationFactory.create_batch(min(size, 150), used_by=users[0], used_at="2026-11-01T10:00Z")
    # The budget includes the one query for the admin's second factor (apps/accounts/second_factor.py) and the
    # Systeemstatus card's six (apps/operations/status.py: fresh on every request, the same six at any size), and
    # one for the installation's first start while a worker was never seen (apps/operations/first_start.py).
    with django_assert_max_num_queries(17):
        assert admin_client.get("/admin").status_code == 200
    for url in JSON_GETS:
        with django_assert_max_num_queries(6):
            assert admin_client.get(url).status_code == 200
    # +3: the download's row in the audit log (a savepoint, the insert, its release inside the test's transaction).
    with django_assert_max_num_queries(9):
        assert admin_client.get("/admin/nieuwsbrief.csv").status_code == 200


# --- photos ------------------------------------------------------------------------------------------


def test_photo_collage_pages_newest_first_with_names(admin_client):
    anonymous = UserFactory(full_name=" ")
    named = UserFactory(full_name="Zwemmer Zus")
    card_a, card_b = UserChallengeFactory(user=anonymous), UserChallengeFactory(user=named)
    for n in range(1, 31):
        DipFactory(user_challenge=card_a, number=n, photo=f"{anonymous.pk}/{n}.jpg")
    for n in range(1, 31):
        DipFactory(user_challenge=card_b, number=n, photo=f"{named.pk}/{n}.jpg")
    DipFactory(user_challenge=card_b, number=99)  # no photo: not in the collage
    first = admin_client.get("/admin/api/fotos").json()
    assert len(first["photos"]) == 48 and first["next"]
    assert first["photos"][0]["userName"] == "Zwemmer Zus"
    second = admin_client.get("/admin/api/fotos", {"cursor": first["next"]}).json()
    assert len(second["photos"]) == 12 and second["next"] is None
    ids = [p["dipId"] for p in first["photos"] + second["photos"]]
    assert len(set(ids)) == 60
    assert "Anonieme zwemmer" in {p["userName"] for p in second["photos"]}


def test_a_bad_cursor_is_a_clear_error(admin_client):
    response = admin_client.get("/admin/api/fotos", {"cursor": "nonsense!!"})
    assert response.status_code == 400 and response.json()["error"] == MESSAGE_PHOTOS_BAD_CURSOR


def test_admin_sees_every_members_photo(admin_client, member):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    dip = dip_register(user=member, photo=ProcessedPhoto(full=b"\xff\xd8full", thumbnail=b"\xff\xd8thumb")).dip
    url = admin_client.get("/admin/api/fotos").json()["photos"][0]["thumbnailUrl"]
    response = admin_client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"\xff\xd8thumb"
    assert url == f"/foto/{dip.pk}/klein"


# --- invitations -------------------------------------------------------------------------------------


def test_single_invitation_with_and_without_email(admin_client, admin_user):
    generic = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": ""})
    assert generic.status_code == 201 and generic.json()["invitation"]["email"] is None
    personal = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": "Nieuw@Example.nl"}).json()
    row = personal["invitation"]
    assert personal["message"] == "Uitnodiging aangemaakt!"
    assert row["email"] == "nieuw@example.nl" and row["statusLabel"] == "Actief"
    assert row["link"] == f"http://testserver/auth?invite={row['code']}"
    assert Invitation.objects.get(code=row["code"]).invited_by == admin_user


@pytest.mark.parametrize(
    ("raw_body", "message"),
    [
        (json.dumps({"email": "geen-adres"}), "Vul een geldig e-mailadres in"),
        (json.dumps({"email": 42}), "Kon uitnodiging niet aanmaken"),
        (json.dumps(None), "Kon uitnodiging niet aanmaken"),
        (json.dumps(["a@example.nl"]), "Kon uitnodiging niet aanmaken"),
        ("{{{", "Kon uitnodiging niet aanmaken"),
    ],
    ids=["bad-address", "number", "null", "array", "not-json"],
)
def test_single_invitation_bad_input(admin_client, raw_body, message):
    response = admin_client.post("/admin/api/uitnodigingen/nieuw", raw_body, content_type="application/json")
    code = "invalid" if message == "Vul een geldig e-mailadres in" else "invitation_request_bad"  # a ValidationError
    assert response.status_code == 400 and response.json() == {"error": message, "code": code}
    assert not Invitation.objects.exists()


def test_bulk_invitations_from_messy_text(admin_client):
    UserFactory(email="bestaat@example.nl")
    text = "Hoi! <piet@example.nl>, PIET@example.nl; bestaat@example.nl\nen ook marie.jansen+zwem@example.org (graag)"
    response = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": text})
    data = response.json()
    assert response.status_code == 201 and data["message"] == "2 uitnodigingen aangemaakt."
    assert sorted(r["email"] for r in data["invitations"]) == ["marie.jansen+zwem@example.org", "piet@example.nl"]
    assert data["skipped"] == ["bestaat@example.nl"]


def test_bulk_errors(admin_client):
    UserFactory(email="bestaat@example.nl")
    none = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "niets hier"})
    assert none.status_code == 400 and none.json()["error"] == "Geen geldige email adressen gevonden"
    registered = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "bestaat@example.nl"})
    assert registered.json()["error"] == "Alle email adressen zijn al geregistreerd"
    huge = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "x" * 1_000_001})
    assert huge.status_code in (400, 413)
    assert not Invitation.objects.exists()


def test_invitation_list_and_delete(admin_client):
    invitation = InvitationFactory()
    rows = admin_client.get("/admin/api/uitnodigingen").json()["invitations"]
    assert [r["code"] for r in rows] == [invitation.code]
    deleted = admin_client.post(f"/admin/api/uitnodigingen/{invitation.pk}/verwijderen")
    assert deleted.status_code == 200 and deleted.json()["message"] == "Uitnodiging verwijderd"
    again = admin_client.post(f"/admin/api/uitnodigingen/{invitation.pk}/verwijderen")
    assert again.status_code == 404 and again.json()["error"] == "Kon uitnodiging niet verwijderen"


# --- newsletter --------------------------------------------------------------------------------------


def test_csv_export_download(admin_client):
    UserFactory(email="abonnee@example.nl", full_name="Abby", newsletter_consent=True)
    UserFactory(email="geen@example.nl", newsletter_consent=False)
    response = admin_client.get("/admin/nieuwsbrief.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="nieuwsbrief-abonnees-' in response["Content-Disposition"]
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeffEmail,Naam,Aangemeld op\r\nabonnee@example.nl,Abby,")
    assert "geen@example.nl" not in body


def test_csv_export_without_subscribers_says_so(admin_client):
    response = admin_client.get("/admin/nieuwsbrief.csv", follow=True)
    assert response.redirect_chain[-1][0] == "/admin"
    assert "Geen nieuwsbrief abonnees gevonden" in response.content.decode()


def test_export_subscribers_command(tmp_path, capsysbinary):
    with pytest.raises(CommandError, match="Geen nieuwsbrief abonnees gevonden"):
        call_command("export_subscribers")
    UserFactory(email="abonnee@example.nl", full_name="Abby", newsletter_consent=True)
    target = tmp_path / "out.csv"
    call_command("export_subscribers", "--output", str(target))
    assert target.read_bytes().startswith(b"\xef\xbb\xbfEmail,Naam,Aangemeld op\r\nabonnee@example.nl,Abby,")
    call_command("export_subscribers")
    assert capsysbinary.readouterr().out == target.read_bytes()


# --- users -------------------------------------------------------------------------------------------


def test_users_table_has_dip_counts(admin_client, member):
    card = UserChallengeFactory(user=member)
    for n in range(1, 4):
        DipFactory(user_challenge=card, number=n)
    users = {u["email"]: u for u in admin_client.get("/admin/api/gebruikers").json()["users"]}
    assert users["marit@example.nl"]["dipCount"] == 3 and not users["marit@example.nl"]["isAdmin"]
    assert users["anna@example.nl"]["isAdmin"]


def test_delete_user_removes_everything_of_theirs_but_keeps_their_invitations(
    admin_client, member, django_capture_on_commit_callbacks
):
    challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    outcomes = [dip_register(user=member, photo=ProcessedPhoto(full=b"a", thumbnail=b"b")) for _ in range(5)]
    names = [n for o in outcomes for n in (o.dip.photo.name, o.dip.thumbnail.name)]
    EventParticipantFactory(user=member)
    sent = InvitationFactory(invited_by=member)
    used = InvitationFactory(used_by=member, used_at="2026-11-01T10:00Z")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/api/gebruikers/{member.pk}/verwijderen")
    assert response.status_code == 200 and response.json()["message"] == "Gebruiker verwijderd"
    assert not User.objects.filter(pk=member.pk).exists()
    assert not Dip.objects.exists() and not UserBadge.objects.exists() and not UserChallenge.objects.exists()
    assert not EventParticipant.objects.exists()
    assert not any(storages["photos"].exists(n) for n in names)
    sent.refresh_from_db(), used.refresh_from_db()
    assert sent.invited_by is None and used.used_by is None and used.used_at is not None


def test_an_admin_cannot_delete_themselves(admin_client, admin_user):
    response = admin_client.post(f"/admin/api/gebruikers/{admin_user.pk}/verwijderen")
    assert response.status_code == 409 and response.json()["error"] == "Je kunt je eigen account niet verwijderen."
    assert User.objects.filter(pk=admin_user.pk).exists()


def test_deleting_an_unknown_user_is_a_clear_error(admin_client):
    response = admin_client.post("/admin/api/gebruikers/999999/verwijderen")
    assert response.status_code == 409 and "bestaat niet" in response.json()["error"]


def test_endpoints_need_the_right_method(admin_client):
    assert admin_client.post("/admin/api/gebruikers").status_code == 405
    assert admin_client.get("/admin/api/gebruikers/1/verwijderen").status_code == 405


def test_pasting_the_same_list_twice_gives_nobody_a_second_open_invitation(admin_client):
    first = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "a@example.nl b@example.nl"})
    assert first.status_code == 201
    again = post_json(
        admin_client, "/admin/api/uitnodigingen/bulk", {"text": "a@example.nl, b@example.nl c@example.nl"}
    )
    assert again.status_code == 201
    assert again.json()["message"] == (
        "1 uitnodigingen aangemaakt. 2 adressen overgeslagen: die hebben al een openstaande uitnodiging."
    )
    assert Invitation.objects.filter(email="a@example.nl").count() == 1
    only_repeats = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "c@example.nl"})
    assert only_repeats.status_code == 400
    assert only_repeats.json()["error"] == (
        "Alle email adressen zijn al geregistreerd of hebben al een openstaande uitnodiging"
    )
    assert Invitation.objects.count() == 3


def test_an_address_whose_invitation_expired_or_was_used_is_invited_again(admin_client, member):
    import datetime

    from django.utils import timezone

    long_ago = timezone.now() - datetime.timedelta(days=60)
    InvitationFactory(email="oud@example.nl", created_at=long_ago, expires_at=long_ago + datetime.timedelta(days=30))
    response = post_json(admin_client, "/admin/api/uitnodigingen/bulk", {"text": "oud@example.nl"})
    assert response.status_code == 201 and response.json()["message"] == "1 uitnodigingen aangemaakt."


def test_a_single_invitation_skips_nobody_the_bulk_path_skips(admin_client, member):
    """An address with an account, or with an open invitation: refused with the reason, nothing made."""
    first = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": "nieuw@example.nl"})
    assert first.status_code == 201
    for email, message in [
        ("Nieuw@Example.nl", "Dit e-mailadres heeft al een openstaande uitnodiging"),
        (member.email.upper(), "Dit e-mailadres heeft al een account"),
    ]:
        response = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": email})
        assert response.status_code == 400 and response.json() == {"error": message, "code": "invalid"}
    assert Invitation.objects.count() == 1


def test_a_single_invitation_for_an_overlong_address_is_a_dutch_400(admin_client):
    email = "a" * 300 + "@example.nl"  # 312 characters: the column holds 254 (PostgreSQL said DataError)
    response = post_json(admin_client, "/admin/api/uitnodigingen/nieuw", {"email": email})
    assert response.status_code == 400
    assert response.json() == {"error": "Vul een geldig e-mailadres in", "code": "invalid"}
    assert not Invitation.objects.exists()
