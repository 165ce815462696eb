"""The import's report as a volunteer reads it: people by name and e-mail, invitations by code, what happened to
each odd account and what she can do about it; the dry run's photo count; the original app's names."""

import datetime
import json
import re
import uuid

import psycopg
import pytest
from django.utils.html import escape

from apps.accounts.forms import MESSAGE_NO_PASSWORD_YET
from apps.accounts.models import User
from apps.challenges.models import Challenge, Dip, UserChallenge

from .source_club import Writer, bcrypt_hash

pytestmark = pytest.mark.django_db

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
LATER = datetime.datetime(2025, 6, 1, tzinfo=datetime.UTC)


def add_to_source(url: str, fill) -> dict:
    with psycopg.connect(url, autocommit=False) as conn:
        made = fill(Writer(conn, None), conn)
        conn.commit()
    return made


def anomalies_of(out: str) -> str:
    return out.split("Bijzonderheden in de oude gegevens:", 1)[1]


def test_the_report_names_members_by_name_and_address_and_invitations_by_code(small_club, photo_dir, run_import):
    out = run_import(database_url=small_club.url, photos=str(photo_dir))
    listed = anomalies_of(out)
    assert "Dirk <dirk@oud.nl>" in listed  # argon2: no usable password
    assert "Carla Oud <carla@oud.nl>" in listed  # her photos, by her name
    assert "Anna Twee <anna@oud.nl>" in listed  # the second account with Anna's address
    assert "Bram Oud <bram@oud.nl>" in listed  # two active cards
    assert "code geen geldige code!" in listed
    assert "Nieuwjaarsduik (" in listed  # the over-full event, by its title and day
    listed_lines = [line.removeprefix("    - ") for line in listed.splitlines() if line.startswith("    - ")]
    assert listed_lines
    # Each line starts with whom or what it is about; an old id is at most a detail (a photo's key in the bucket).
    assert not [line for line in listed_lines if UUID.match(line)], listed_lines


def test_a_dry_run_counts_the_photos_the_real_run_will(small_club, photo_dir, run_import):
    def photo_line(out: str) -> tuple[str, str]:
        found = re.search(r"Foto's: (\d+) gevonden", out).group(1)
        missing = re.search(r"(\d+) overgeslagen: bestand ontbreekt", out).group(1)
        return found, missing

    # A dip without a card, with a photo the real run never looks for.
    def odd_dips(w: Writer, conn) -> dict:
        w.dips(small_club.ids["carla"], None, 1, start=LATER, photo=lambda i: b"zonder kaart")
        return {}

    add_to_source(small_club.url, odd_dips)
    dry = run_import(database_url=small_club.url, photos=str(photo_dir), dry_run=True)
    real = run_import(database_url=small_club.url, photos=str(photo_dir))
    assert photo_line(dry) == photo_line(real)
    assert "Foto's: 4 gevonden, 3 zou importeren" in dry  # Anna's and Carla's good and broken ones are present


def test_banned_members_and_cut_names_are_listed_with_what_to_do(small_club, run_import):
    long_name = "Wilhelmina " * 20

    def odd_members(w: Writer, conn) -> dict:
        banned = w.user("geblokkeerd@oud.nl", password_hash=bcrypt_hash("x"), name="Gerda Blok")
        conn.execute("UPDATE auth.users SET banned_until = %s WHERE id = %s", [datetime.datetime(2099, 1, 1), banned])
        w.user("lang@oud.nl", password_hash=bcrypt_hash("x"), name=long_name)
        return {}

    add_to_source(small_club.url, odd_members)
    out = run_import(database_url=small_club.url)
    assert not User.objects.get(email="geblokkeerd@oud.nl").is_active
    assert "Gerda Blok <geblokkeerd@oud.nl>: tot 01-01-2099" in out
    assert "zet dan in Django-admin bij Gebruikers het vinkje 'Actief' aan" in out
    assert len(User.objects.get(email="lang@oud.nl").full_name) == 150
    assert "Naam langer dan 150 tekens: ingekort. Het lid kan de naam zelf aanpassen onder Ik" in out
    assert "<lang@oud.nl>: nu: Wilhelmina" in out


def test_a_case_duplicate_is_skipped_and_merged_into_the_older_account_on_request(small_club, run_import):
    def second_bram(w: Writer, conn) -> dict:
        (challenge,) = conn.execute("SELECT id FROM public.challenges WHERE name = 'Eerste Plonsen'").fetchone()
        # Listed first in the old database, but made later: the older account (Bram's) is the member's.
        uid = w.user("Bram@Oud.nl", password_hash=bcrypt_hash("tweede"), name="Bram Twee", created=LATER)
        conn.execute("UPDATE auth.users SET created_at = %s WHERE id = %s", [LATER, uid])
        card = w.card(uid, challenge, category="normal", created=LATER)
        w.dips(uid, card, 2, start=LATER)
        return {"uid": uid}

    add_to_source(small_club.url, second_bram)
    out = run_import(database_url=small_club.url)
    bram = User.objects.get(email="bram@oud.nl")
    assert bram.full_name == "Bram Oud"
    assert "Bram Twee <bram@oud.nl>" in anomalies_of(out)
    assert "Draai de import opnieuw met --merge-duplicates" in out
    before = Dip.objects.filter(user=bram).count()

    out = run_import(database_url=small_club.url, merge_duplicates=True)
    assert Dip.objects.filter(user=bram).count() == before + 2
    assert UserChallenge.objects.filter(user=bram, challenge__name="Eerste Plonsen").exists()
    assert User.objects.filter(email__iexact="bram@oud.nl").count() == 1
    assert "samengevoegd in het oudste account" in out and "in Bram Oud <bram@oud.nl>" in out


def test_a_member_whose_password_could_not_come_along_hears_at_sign_in_what_to_do(small_club, run_import, client):
    run_import(database_url=small_club.url)
    for email in ("dirk@oud.nl", "carla@oud.nl"):  # an argon2 hash; a Google account without a password
        response = client.post("/auth", {"form": "inloggen", "login": email, "password": "wat-het-ook-was"})
        assert escape(MESSAGE_NO_PASSWORD_YET) in response.content.decode(), email
        assert "_auth_user_id" not in client.session
    # A member with a password who types a wrong one hears the usual message.
    response = client.post("/auth", {"form": "inloggen", "login": "bram@oud.nl", "password": "fout"})
    assert escape(MESSAGE_NO_PASSWORD_YET) not in response.content.decode()
    assert response.status_code == 200 and "_auth_user_id" not in client.session


def test_the_original_starter_challenge_is_the_catalogues_five_dip_challenge(small_club, run_import):
    def starter(w: Writer, conn) -> dict:
        challenge, _badges = w.challenge("Starter Challenge", "normal", 5, [(5, "Waterslak")])
        uid = w.user("starter@oud.nl", password_hash=bcrypt_hash("x"), name="Sam Start")
        card = w.card(uid, challenge, category="normal")
        w.dips(uid, card, 3)
        return {"challenge": challenge}

    add_to_source(small_club.url, starter)
    challenges = Challenge.objects.count()
    out = run_import(database_url=small_club.url)
    assert Challenge.objects.count() == challenges + 1  # the club's Nieuwjaarsduik only
    assert not Challenge.objects.filter(name="Starter Challenge").exists()
    card = UserChallenge.objects.get(user__email="starter@oud.nl")
    assert card.challenge.name == "Eerste Plonsen" and card.challenge.target_dips == 5
    assert "gekoppeld aan 'Eerste Plonsen' uit de catalogus" in out


def test_no_old_id_of_a_member_needs_looking_up_in_the_json_report_either(small_club, run_import, tmp_path):
    report = tmp_path / "rapport.json"
    run_import(database_url=small_club.url, report=str(report))
    data = json.loads(report.read_text())
    for kind, rows in data["anomalies"].items():
        for row in rows:
            assert row["who"], (kind, row)
            assert not UUID.search(row["who"]), (kind, row)
    assert uuid.UUID(data["anomalies"]["no_password"][0]["old_id"])  # the old id stays, for whoever needs it
