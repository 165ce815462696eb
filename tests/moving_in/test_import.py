"""import_supabase against a database in the original app's shape: every entity, by this app's rules."""

import datetime
import json
import os

import pytest
from django.apps import apps
from django.core import mail
from django.core.management.base import CommandError

from apps.accounts.models import User, UserRole
from apps.challenges.models import Badge, Challenge, Dip, DipBuddy, UserBadge, UserChallenge
from apps.club.models import Brrr, ClubSharing
from apps.events.models import Event, EventParticipant
from apps.invitations.models import Invitation
from apps.invitations.services import invitation_validate
from apps.moving_in.models import ImportedObject
from apps.moving_in.services import ADVISORY_LOCK_KEY
from apps.notifications.models import Mail, Notice
from tests.challenges.test_club_tallies import assert_tallies_true
from tests.factories import UserFactory
from tests.mailbox import run_worker

from .source_club import PASSWORDS

pytestmark = pytest.mark.django_db


def counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def test_every_entity_comes_in_by_the_apps_rules(small_club, photo_dir, run_import, tmp_path):
    before = counts()
    report_file = tmp_path / "rapport.json"
    out = run_import(database_url=small_club.url, report=str(report_file), photos=str(photo_dir))
    after = counts()
    added = {label: after[label] - before[label] for label in after if after[label] != before[label]}
    # The club's tallies for /admin follow the dips and awards (database triggers): true to the rows, not counted here.
    assert_tallies_true()
    for derived in ("challenges.DipWeekTally", "challenges.MemberWeekTally", "challenges.BadgeTally"):
        added.pop(derived, None)
    assert added == {
        "accounts.User": 5,  # anna, bram, carla, dirk, marit (not: deleted, Anna's address twice)
        "accounts.UserRole": 1,
        "challenges.Challenge": 1,  # Nieuwjaarsduik; the stamp card and Eerste Plonsen are the catalogue's
        "challenges.Badge": 1,
        "challenges.UserChallenge": 6,
        "challenges.Dip": 130,
        "challenges.UserBadge": 10,
        "invitations.Invitation": 4,
        "events.Event": 2,
        "events.EventParticipant": 4,
        "moving_in.ImportedObject": added["moving_in.ImportedObject"],
    }
    anna = User.objects.get(email="anna@oud.nl")
    assert (anna.full_name, anna.newsletter_consent) == ("Anna Oud", True)
    assert anna.created_at == datetime.datetime(2025, 1, 5, 9, 0, tzinfo=datetime.UTC)
    assert UserRole.objects.filter(user=anna, role="admin").exists()
    # 103 dips on a card of 100: the card holds 100 (numbered in order), three are kept without a card.
    card = UserChallenge.objects.get(user=anna)
    assert card.is_active and card.completed_at == datetime.datetime(2025, 4, 20, tzinfo=datetime.UTC)
    assert list(card.dips.order_by("number").values_list("number", flat=True)) == list(range(1, 101))
    numbers_by_date = list(card.dips.order_by("dip_date").values_list("number", flat=True))
    assert numbers_by_date == sorted(numbers_by_date)
    assert anna.dips.filter(user_challenge=None).count() == 3
    assert User.objects.get(pk=anna.pk).dip_count == 103
    # Every milestone reached: six badges, the newest of the two Waterslakken, Meerval given at its 75th dip.
    awards = {a.badge.milestone_dips: a.earned_at for a in UserBadge.objects.filter(user_challenge=card)}
    assert sorted(awards) == [5, 10, 25, 50, 75, 100]
    assert awards[5] == datetime.datetime(2025, 1, 20, tzinfo=datetime.UTC)
    assert awards[75] == card.dips.get(number=75).created_at
    # Bram: two active cards in the old app; here one active (the one with more dips), the other kept.
    bram = User.objects.get(email="bram@oud.nl")
    bram_cards = {c.dips.count(): c for c in UserChallenge.objects.filter(user=bram)}
    assert bram_cards[12].is_active and not bram_cards[4].is_active
    assert sorted(b.milestone_dips for b in Badge.objects.filter(awards__user=bram)) == [5, 10]  # no Meerkoet at 12
    midnight = Dip.objects.get(user=bram, created_at=datetime.datetime(2025, 3, 1, 23, 30, tzinfo=datetime.UTC))
    assert midnight.dip_date == datetime.date(2025, 3, 1)
    # Carla: the old app completed her card at 4 of 5 dips; a completed card stays completed.
    carla_card = UserChallenge.objects.get(user__email="carla@oud.nl")
    assert carla_card.completed_at is not None and carla_card.dips.count() == 4
    assert not UserBadge.objects.filter(user_challenge=carla_card).exists()
    # Dirk's special challenge was created with its badge.
    dive = Challenge.objects.get(name="Nieuwjaarsduik")
    assert (dive.category, dive.target_dips) == ("special", 1)
    assert UserBadge.objects.filter(user__email="dirk@oud.nl", badge__challenge=dive).count() == 1
    # Events keep every participant, also over the maximum.
    assert Event.objects.get(title="Nieuwjaarsduik").participants.count() == 3
    # Every anomaly is in the report, the text and the JSON.
    report = json.loads(report_file.read_text())
    for kind in (
        "email_duplicate",
        "no_password",
        "two_active_cards",
        "dips_over_target",
        "completed_short",
        "badge_duplicate",
        "badge_missing",
        "badge_unearned",
        "event_overfull",
        "invitation_invalid",
        "dip_date_midnight",
        "photo_missing",
        "photo_broken",
    ):
        assert kind in report["anomalies"], kind
    assert report["entities"]["dips"]["imported"] == 130
    assert len(report["anomalies"]["no_password"]) == 2  # Carla (Google) and Dirk (argon2)
    assert "Plonsen boven het doel" in out and "Leden: 7 gevonden, 5 geïmporteerd" in out
    # Never a password or a hash in the report.
    text = report_file.read_text() + out
    assert "$2a$" not in text and "$2b$" not in text and "argon2" not in text
    assert all(password not in text for password in PASSWORDS.values())


def test_a_member_signs_in_through_auth_with_her_old_password(small_club, run_import, client):
    run_import(database_url=small_club.url)
    anna = User.objects.get(email="anna@oud.nl")
    assert anna.password.startswith("supabase_bcrypt$$2a$10$")
    response = client.post("/auth", {"form": "inloggen", "login": "Anna@Oud.nl", "password": PASSWORDS["anna"]})
    assert response.status_code == 302 and response["Location"] == "/dashboard"
    assert client.session["_auth_user_id"] == str(anna.pk)
    anna.refresh_from_db()
    assert not anna.password.startswith("supabase_bcrypt$")  # replaced by the project's own hash
    assert anna.check_password(PASSWORDS["anna"])
    assert ImportedObject.objects.get(kind="user", new_id=anna.pk).first_sign_in_at is not None
    client.logout()
    # $2b$ hashes too; Bram sees his own card (the active one of his two) and his badges.
    response = client.post("/auth", {"form": "inloggen", "login": "bram@oud.nl", "password": PASSWORDS["bram"]})
    assert response.status_code == 302
    for page in ("/dashboard", "/challenge"):
        assert client.get(page).status_code == 200
    assert "Kikker" in client.get("/dashboard").content.decode()


@pytest.mark.parametrize("password", ["niet-het-goede-wachtwoord", "é" * 40, PASSWORDS["anna"] + "x" * 58])
def test_a_wrong_or_80_byte_password_is_refused_never_a_500(small_club, run_import, client, password):
    run_import(database_url=small_club.url)
    stored = User.objects.get(email="anna@oud.nl").password
    response = client.post("/auth", {"form": "inloggen", "login": "anna@oud.nl", "password": password})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    assert User.objects.get(email="anna@oud.nl").password == stored


def test_members_without_a_usable_password_get_a_reset_link_the_normal_way(small_club, run_import, client):
    run_import(database_url=small_club.url)
    carla = User.objects.get(email="carla@oud.nl")
    assert not carla.has_usable_password()
    response = client.post("/auth/wachtwoord-vergeten", {"email": "carla@oud.nl"})
    assert response["Location"] == "/auth/wachtwoord-vergeten/verstuurd"
    run_worker()
    assert [m.to for m in mail.outbox] == [["carla@oud.nl"]]


def test_the_dry_run_writes_nothing(small_club, photo_dir, run_import, photo_storage_files):
    before, files = counts(), photo_storage_files()
    out = run_import(database_url=small_club.url, dry_run=True, photos=str(photo_dir))
    assert counts() == before
    assert photo_storage_files() == files
    assert out.startswith("Proefdraai: er is niets geschreven.")
    assert "Plonsen: 130 gevonden, 130 zou importeren" in out
    assert "Foto ontbreekt in de bucket" in out


def test_a_second_run_adds_nothing_and_says_so(small_club, photo_dir, run_import):
    run_import(database_url=small_club.url, photos=str(photo_dir))
    before = counts()
    out = run_import(database_url=small_club.url, photos=str(photo_dir))
    assert counts() == before
    assert "Niets nieuws: alles uit de oude app was al geïmporteerd." in out
    assert "Plonsen: 130 gevonden, 0 geïmporteerd, 130 al eerder geïmporteerd" in out


def test_conflict_refuse_writes_nothing_and_lists_the_addresses(small_club, run_import):
    UserFactory(email="marit@example.nl", full_name="Marit Hier")
    before = counts()
    with pytest.raises(CommandError, match="marit@example.nl") as refused:
        run_import(database_url=small_club.url)
    assert "Er is niets geïmporteerd" in str(refused.value)
    assert counts() == before


def test_conflict_skip_leaves_the_account_alone(small_club, run_import):
    marit = UserFactory(email="marit@example.nl", full_name="Marit Hier")
    out = run_import(database_url=small_club.url, on_conflict="skip")
    assert not UserChallenge.objects.filter(user=marit).exists()
    assert User.objects.filter(email__in=["anna@oud.nl", "bram@oud.nl"]).count() == 2
    assert "e-mailadres heeft hier al een account (--on-conflict skip)" in out


def test_conflict_merge_brings_the_old_history_into_the_account(small_club, run_import):
    marit = UserFactory(email="marit@example.nl", full_name="Marit Hier")
    password = marit.password
    run_import(database_url=small_club.url, on_conflict="merge")
    marit.refresh_from_db()
    assert (marit.full_name, marit.password, marit.dip_count) == ("Marit Hier", password, 6)
    card = UserChallenge.objects.get(user=marit)
    assert card.dips.count() == 6 and card.is_active


def test_the_import_is_silent_and_private(small_club, photo_dir, run_import):
    before = counts()
    run_import(database_url=small_club.url, photos=str(photo_dir))
    run_worker()  # whatever would have been queued is sent now
    assert mail.outbox == []
    assert counts()["django_tasks_database.DBTaskResult"] == before["django_tasks_database.DBTaskResult"]
    assert Mail.objects.count() == 0 and Notice.objects.count() == 0
    assert DipBuddy.objects.count() == 0 and Brrr.objects.count() == 0 and ClubSharing.objects.count() == 0
    assert not Dip.objects.filter(share_photo=True).exists()


def test_old_invitation_codes_keep_working_whatever_their_shape(small_club, run_import):
    run_import(database_url=small_club.url)
    assert invitation_validate(code="ABCD2345", email="nieuw@example.nl").is_valid
    assert invitation_validate(code=" welkom-2025 ", email="nieuw@example.nl").is_valid
    assert invitation_validate(code="USED1234", email="nieuw@example.nl").code == "used"
    assert invitation_validate(code="OLDCODE1", email="nieuw@example.nl").code == "expired"
    used = Invitation.objects.get(code="USED1234")
    assert used.used_by == User.objects.get(email="bram@oud.nl")


def test_a_link_shared_in_whatsapp_still_signs_a_new_member_up(small_club, run_import, client):
    run_import(database_url=small_club.url)
    assert client.get("/auth?invite=welkom-2025").status_code == 200
    response = client.post(
        "/auth?tab=registreren",
        {
            "form": "registreren",
            "code": "welkom-2025",
            "full_name": "Nieuwe Zwemmer",
            "email": "nieuw@example.nl",
            "password": "geheim-123",
        },
    )
    assert response.status_code == 302
    assert Invitation.objects.get(code="WELKOM-2025").used_by == User.objects.get(email="nieuw@example.nl")


def test_participants_and_events(small_club, run_import):
    run_import(database_url=small_club.url)
    assert set(EventParticipant.objects.values_list("user__email", flat=True)) == {
        "anna@oud.nl",
        "bram@oud.nl",
        "carla@oud.nl",
        "dirk@oud.nl",
    }


def test_the_apps_own_database_is_refused(run_import, settings):
    own = settings.DATABASES["default"]
    url = f"postgres://{own['USER']}@{own['HOST']}:{own['PORT']}/{own['NAME']}"
    with pytest.raises(CommandError, match="database van deze app zelf"):
        run_import(database_url=url)


def test_two_runs_at_once_are_refused(small_club, run_import):
    import psycopg
    from django.db import connection

    own = connection.settings_dict
    with psycopg.connect(
        host=own["HOST"], port=own["PORT"], user=own["USER"], dbname=own["NAME"], autocommit=True
    ) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [ADVISORY_LOCK_KEY])  # a run in progress elsewhere
        with pytest.raises(CommandError, match="Er loopt al een import"):
            run_import(database_url=small_club.url)
    assert not User.objects.filter(email="anna@oud.nl").exists()


def test_forgetting_the_bookkeeping(small_club, run_import):
    run_import(database_url=small_club.url)
    with pytest.raises(CommandError, match="--yes"):
        from django.core.management import call_command

        call_command("import_supabase_forget")
    from django.core.management import call_command

    call_command("import_supabase_forget", yes=True)
    assert ImportedObject.objects.count() == 0
    assert User.objects.filter(email="anna@oud.nl").exists()


def test_a_database_that_is_not_the_old_apps_is_refused_in_dutch(run_import):
    from .source_club import server_url

    with pytest.raises(CommandError, match="In deze database ontbreekt auth.users"):
        run_import(database_url=server_url(os.environ["DATABASE_URL"], "postgres"))
    with pytest.raises(CommandError, match="De database van de oude app is niet bereikbaar"):
        run_import(database_url="postgres://root@127.0.0.1:1/nergens")


def test_a_moved_in_member_finds_her_old_ids_in_her_export(small_club, run_import, client):
    """The bookkeeping of the move is the member's data: her export says which old id became which row."""
    import io
    import zipfile

    from apps.logbook.export import export_write

    run_import(database_url=small_club.url)
    anna = User.objects.get(email="anna@oud.nl")
    out = io.BytesIO()
    export_write(anna, out)
    rows = json.loads(zipfile.ZipFile(out).read("overgezet-uit-de-oude-app.json"))
    mine = ImportedObject.objects.filter(user=anna)
    assert len(rows) == mine.count() > 1
    kinds = {row["soort"] for row in rows}
    assert {"Lid", "Kaart", "Plons"} <= kinds
    (as_user,) = [row for row in rows if row["soort"] == "Lid"]
    assert as_user["id_hier"] == anna.pk and as_user["id_in_de_oude_app"] == mine.get(kind="user").old_id
    # Only her own bookkeeping: nothing of the other members who moved in.
    assert {row["id_in_de_oude_app"] for row in rows} == set(mine.values_list("old_id", flat=True))
