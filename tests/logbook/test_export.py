"""Download mijn gegevens: one ZIP with every section as JSON and CSV, and the photos, prepared by the worker."""

import csv
import io
import json
import zipfile
from decimal import Decimal

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.core.files.base import ContentFile
from django.http import FileResponse
from django.utils import timezone

from apps.attendance.models import ShoreList, ShoreSwimmer
from apps.challenges.models import ClubChallenge, Dip, DipBuddy, photo_storage
from apps.club.models import Brrr, ClubSharing
from apps.events.models import CalendarFeed, EventSeriesMember, EventSeriesSkip, EventWaitlistEntry
from apps.logbook.export import SECTIONS
from apps.moving_in.models import ImportedObject
from apps.notifications.models import Mail, MailPreference
from apps.together.models import Reply
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    AttendanceFactory,
    BadgeFactory,
    ChallengeFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    EventSeriesFactory,
    MeetupFactory,
    NoticeFactory,
    NoticePreferenceFactory,
    PostalAddressFactory,
    PushSubscriptionFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def download(client) -> zipfile.ZipFile:
    """Ask for the export, let the worker prepare it, follow the download link (served by the app here)."""
    assert client.post("/account/export").status_code == 302
    run_worker()
    link = client.get("/account/export/download")
    assert link.status_code == 302 and link["Location"].startswith("/account/export/bestand/")
    response = client.get(link["Location"])
    assert response.status_code == 200
    assert isinstance(response, FileResponse)
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="mijn-gegevens-')
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def read_csv(archive, name):
    text = archive.read(name).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text), delimiter=";"))


@pytest.fixture
def history(member, other_member):
    card = UserChallengeFactory(user=member)
    photo = photo_storage().save(f"{member.pk}/export.jpg", ContentFile(image_bytes()))
    DipFactory(
        user_challenge=card,
        number=1,
        water_temperature=Decimal("4.5"),
        duration_seconds=150,
        spot='=HYPERLINK("x")',
        note="Koud!",
        photo=photo,
    )
    DipFactory(user_challenge=card, number=2)
    UserBadgeFactory(user_challenge=card)
    EventParticipantFactory(user=member)
    DipFactory(user_challenge=UserChallengeFactory(user=other_member), number=1, spot="Van een ander")
    return photo


def test_every_section_is_there_as_json_and_csv_and_the_photos(member_client, history):
    archive = download(member_client)
    names = set(archive.namelist())
    for section in SECTIONS:
        assert {f"{section.name}.json", f"{section.name}.csv"} <= names
    photos = [name for name in names if name.startswith("fotos/")]
    assert len(photos) == 1 and archive.read(photos[0]) == photo_storage().open(history).read()
    assert archive.testzip() is None


def test_dips_carry_their_conditions_and_only_mine(member_client, member, history):
    archive = download(member_client)
    dips = json.loads(archive.read("plonsen.json"))
    assert [d["nummer"] for d in dips] == [1, 2]
    assert (dips[0]["watertemperatuur_c"], dips[0]["tijd_in_water_seconden"], dips[0]["notitie"]) == (4.5, 150, "Koud!")
    assert dips[0]["foto"].startswith("fotos/") and dips[1]["foto"] == ""
    assert "Van een ander" not in archive.read("plonsen.csv").decode("utf-8-sig")
    profile = json.loads(archive.read("profiel.json"))
    assert profile[0]["e-mailadres"] == member.email
    assert len(json.loads(archive.read("badges.json"))) == 1
    assert len(json.loads(archive.read("event-aanmeldingen.json"))) == 1
    assert len(json.loads(archive.read("challenges.json"))) == 1


OWN, OTHERS = "eigenmarit", "vreemdeotto"  # markers: lower case, so they survive slugify into photo names


def a_row_in_every_section(user, marker: str) -> str:
    """One row of `user` in every section of the export, each carrying `marker` where the row has text,
    and one photo whose name and bytes carry it; returns the photo's name in storage."""
    challenge = ChallengeFactory(name=f"Challenge {marker}")
    card = UserChallengeFactory(user=user, challenge=challenge)
    photo = photo_storage().save(f"{user.pk}/{marker}.jpg", ContentFile(image_bytes() + marker.encode()))
    DipFactory(user_challenge=card, number=1, spot=marker, note=marker, photo=photo)
    UserBadgeFactory(user_challenge=card, badge=BadgeFactory(challenge=challenge, name=f"Badge {marker}"))
    PostalAddressFactory(user=user, recipient=marker, street=f"{marker}straat 1")
    EventParticipantFactory(user=user, event=EventFactory(title=f"Duik {marker}"))
    AttendanceFactory(user=user, event=EventFactory(title=f"Zondagduik {marker}"), signed_off_by=None)
    shore_list = ShoreList.objects.create(event=EventFactory(title=f"Waterkant {marker}"))
    ShoreSwimmer.objects.create(shore_list=shore_list, user=user, went_in_at=timezone.now())
    # A weekly series the member comes to every week, with one date skipped (issue 34 §3).
    series = EventSeriesFactory()
    EventFactory(title=f"Reeksduik {marker}", series=series)
    EventSeriesMember.objects.create(series=series, user=user)
    EventSeriesSkip.objects.create(event=EventFactory(title=f"Overgeslagen {marker}", series=series), user=user)
    full = EventFactory(title=f"Wachtlijst {marker}", max_participants=1)
    EventWaitlistEntry.objects.create(event=full, user=user)
    CalendarFeed.objects.create(user=user, token=f"token-{marker}")
    MailPreference.objects.create(user=user, event_mails=False, dip_nudge=True)
    Mail.objects.create(kind="waitlist_offer", to_email=user.email, user=user, event_id=full.pk)
    Authenticator.objects.create(user=user, type=Authenticator.Type.WEBAUTHN, data={"name": f"Sleutel {marker}"})
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    PushSubscriptionFactory(user=user, device_label=f"Telefoon {marker}")
    NoticePreferenceFactory(user=user, kind="club_message", channel="mail")
    NoticeFactory(user=user, title=f"Bericht {marker}")
    ClubChallengeEntryFactory(user=user, club_challenge=ClubChallengeFactory(name=f"Clubchallenge {marker}"))
    ClubSharing.objects.create(user=user, share_dips=True)
    Brrr.objects.create(user=user, kind="event", object_id=full.pk)
    # Samen plonsen: an afspraak the member proposed, a buddy on their dip, a clubmate who named them.
    meetup = MeetupFactory(proposer=user, place=f"Plas {marker}")
    Reply.objects.create(author=user, meetup=meetup, text=f"Tot zo {marker}")  # past the service: nobody is told
    dip = Dip.objects.get(user_challenge=card)
    tagger_dip = DipFactory(
        user_challenge=UserChallengeFactory(user=UserFactory(full_name=f"Tagger {marker}")), number=1
    )
    # Past the signal: the request mails would be rows of the e-mails section too.
    DipBuddy.objects.bulk_create(
        [
            DipBuddy(dip=dip, buddy=UserFactory(full_name=f"Buddy {marker}")),
            DipBuddy(dip=tagger_dip, buddy=user),
        ]
    )
    # Moved in from the original app: the old id the member had there.
    ImportedObject.objects.create(kind=ImportedObject.Kind.USER, old_id=f"{marker}-uuid", new_id=user.pk, user=user)
    return photo


def test_club_challenges_and_dips_without_a_card_are_in_the_export(member_client, member, other_member):
    """Issue 25: the member's club challenges (joined, completed) and a dip registered without a stamp card."""
    entry = ClubChallengeEntryFactory(
        user=member,
        club_challenge=ClubChallengeFactory(name="Dip a Day December", kind=ClubChallenge.Kind.DAYS, target=1),
    )
    ClubChallengeEntryFactory(user=other_member, club_challenge=entry.club_challenge)
    photo = photo_storage().save(f"{member.pk}/los.jpg", ContentFile(image_bytes()))
    DipFactory(user=member, user_challenge=None, number=1, photo=photo)  # completes the challenge
    archive = download(member_client)
    rows = json.loads(archive.read("clubchallenges.json"))
    assert len(rows) == 1 and rows[0]["clubchallenge"] == "Dip a Day December" and rows[0]["soort"] == "1 dag"
    assert rows[0]["meegedaan_sinds"] and rows[0]["voltooid_op"]
    dips = json.loads(archive.read("plonsen.json"))
    assert dips[0]["challenge"] == "zonder stempelkaart" and dips[0]["challenge_id"] is None
    assert dips[0]["foto"] in archive.namelist() and "zonder-stempelkaart" in dips[0]["foto"]


def test_the_export_holds_only_my_rows_in_every_section_and_only_my_photos(client):
    me = UserFactory(full_name=f"Marit {OWN}", email=f"{OWN}@example.nl")
    other = UserFactory(full_name=f"Otto {OTHERS}", email=f"{OTHERS}@example.nl")
    my_photo = a_row_in_every_section(me, OWN)
    a_row_in_every_section(other, OTHERS)
    # The other member really has a row everywhere, so a section that leaked would show it.
    assert [section.name for section in SECTIONS if not section.rows_of(other).exists()] == []

    client.force_login(me)
    archive = download(client)

    for section in SECTIONS:
        rows = json.loads(archive.read(f"{section.name}.json"))
        # Exactly my one row: a section added without a row in the helper above fails here (no row),
        # and one that reads past the owner filter has two.
        assert len(rows) == 1, (section.name, rows)
        assert len(read_csv(archive, f"{section.name}.csv")) == 1, section.name
    photos = [name for name in archive.namelist() if name.startswith("fotos/")]
    assert len(photos) == 1 and OWN in photos[0]
    assert archive.read(photos[0]) == photo_storage().open(my_photo).read()
    for name in archive.namelist():
        assert OTHERS not in name and OTHERS.encode() not in archive.read(name), name
    # The check above can see a leak: my marker reaches every section with text in it, and my photo.
    without_text = {"agenda-en-e-mail", "meldingen-keuzes", "club-delen", "brrr-gegeven", "samen-plonsen"}
    assert {s.name for s in SECTIONS if OWN not in archive.read(f"{s.name}.json").decode()} == without_text
    assert OWN.encode() in archive.read(photos[0])


def test_csv_cells_are_neutralised_like_the_newsletter_csv(member_client, history):
    rows = read_csv(download(member_client), "plonsen.csv")
    assert rows[0]["plek"] == '\'=HYPERLINK("x")'
    assert rows[0]["watertemperatuur_c"] == "4,5"


def test_the_csv_opens_in_columns_in_dutch_excel(member_client, history):
    """Issue 28 §6: Dutch Excel splits on ';' (its decimal mark is the comma) and reads UTF-8 after the BOM."""
    raw = download(member_client).read("plonsen.csv")
    assert raw.startswith("\ufeff".encode())
    header = raw.decode("utf-8-sig").split("\r\n")[0]
    assert ";" in header and "," not in header


def test_a_photo_missing_from_storage_does_not_break_the_export(member_client, history):
    photo_storage().delete(history)
    archive = download(member_client)
    assert not [name for name in archive.namelist() if name.startswith("fotos/")]
    assert "plonsen.json" in archive.namelist()


def test_an_empty_account_exports_too(member_client, member):
    archive = download(member_client)
    assert json.loads(archive.read("plonsen.json")) == []


@pytest.mark.parametrize("size", [1, 60])
def test_export_query_budget(member, size, django_assert_max_num_queries):
    from apps.logbook.export import export_write

    card = UserChallengeFactory(user=member)
    for number in range(1, size + 1):
        DipFactory(user_challenge=card, number=number, photo=f"{member.pk}/missing-{number}.jpg")
        DipFactory(user=member, user_challenge=None, number=number, photo=f"{member.pk}/los-{number}.jpg")
    ClubChallengeEntryFactory.create_batch(min(size, 20), user=member)
    # About one query per section plus the photos: the same at 1 and at 60 dips.
    with django_assert_max_num_queries(28):
        export_write(member, io.BytesIO())


def test_anonymous_visitors_go_to_auth(client):
    response = client.post("/account/export")
    assert response.status_code == 302 and response["Location"] == "/auth?next=/account/export"
    response = client.get("/account/export/download")
    assert response.status_code == 302 and response["Location"] == "/auth?next=/account/export/download"


def test_club_life_and_physical_badge_data_are_in_the_export_but_not_the_calendar_secret(member_client, member):
    import datetime

    from apps.challenges.models import PhysicalStatus
    from apps.events.models import CalendarFeed, EventWaitlistEntry
    from apps.notifications.models import Mail, MailPreference
    from tests.factories import EventFactory, PostalAddressFactory

    card = UserChallengeFactory(user=member)
    UserBadgeFactory(
        user_challenge=card, physical_status=PhysicalStatus.SENT, physical_status_on=datetime.date(2026, 12, 3)
    )
    PostalAddressFactory(user=member, street="Boulevard 1", postcode="2586 AA", city="Den Haag")
    waiting_for = EventFactory(title="Nieuwjaarsduik", max_participants=1)
    EventWaitlistEntry.objects.create(event=waiting_for, user=member)
    CalendarFeed.objects.create(user=member, token="geheime-agenda-token-van-marit")
    MailPreference.objects.create(user=member, event_mails=False, dip_nudge=True)
    Mail.objects.create(
        kind="waitlist_offer",
        to_email=member.email,
        user=member,
        event_id=waiting_for.pk,
        status=Mail.Status.SENT,
    )

    archive = download(member_client)

    badges = json.loads(archive.read("badges.json"))
    assert badges[0]["fysieke_badge"] == "Verstuurd" and badges[0]["fysieke_badge_datum"] == "2026-12-03"
    address = json.loads(archive.read("postadres.json"))
    assert address[0]["straat"] == "Boulevard 1" and address[0]["plaats"] == "Den Haag"
    assert json.loads(archive.read("wachtlijsten.json"))[0]["event"] == "Nieuwjaarsduik"
    settings_row = json.loads(archive.read("agenda-en-e-mail.json"))[0]
    assert settings_row["agenda_abonnement"] is True
    assert settings_row["mail_over_mijn_events"] is False and settings_row["herinnering_na_14_dagen"] is True
    mails = json.loads(archive.read("e-mails.json"))
    assert mails[0]["soort"] == "Er is een plek vrij voor je (wachtlijst)" and mails[0]["status"] == "Verstuurd"
    everything = b"".join(archive.read(name) for name in archive.namelist() if not name.startswith("fotos/"))
    assert b"geheime-agenda-token-van-marit" not in everything


def test_second_factors_are_listed_without_their_secrets(client):
    from allauth.mfa.models import Authenticator

    from tests.factories import TOTP_SECRET, AdminFactory

    admin = AdminFactory()  # with an authenticator app
    client.force_login(admin)
    archive = download(client)
    factors = json.loads(archive.read("inlogmethoden.json"))
    assert [factor["soort"] for factor in factors] == [str(Authenticator.Type.TOTP.label)]
    everything = b"".join(archive.read(name) for name in archive.namelist() if not name.startswith("fotos/"))
    assert TOTP_SECRET.encode() not in everything


def test_samen_plonsen_is_in_the_export(member_client, member, other_member):
    import datetime

    from django.utils import timezone

    from apps.challenges.services.dips import dip_register
    from apps.together.services import briefing_read, buddy_accept, meetup_join

    UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=3))
    UserChallengeFactory(user=other_member, started_at=timezone.now() - datetime.timedelta(days=3))
    meetup = MeetupFactory(proposer=other_member, place="Sloterplas")
    meetup_join(user=member, meetup_id=meetup.pk)
    dip_register(user=member, buddy_ids=[other_member.pk])
    tag = dip_register(user=other_member, buddy_ids=[member.pk]).dip.buddies.get()
    buddy_accept(user=member, tag_id=tag.pk)
    briefing_read(user=member, today=datetime.date(2026, 10, 2))

    archive = download(member_client)

    meetups = json.loads(archive.read("plonsafspraken.json"))
    assert [(row["waar"], row["door_mij_voorgesteld"]) for row in meetups] == [("Sloterplas", False)]
    mine = json.loads(archive.read("buddies-bij-mijn-plonsen.json"))
    assert [(row["buddy"], row["status"]) for row in mine] == [("Otto Ander", "Nog niet bevestigd")]
    tagged = json.loads(archive.read("getagd-door-clubgenoten.json"))
    assert [(row["door"], row["status"]) for row in tagged] == [("Otto Ander", "Op de kaart gezet")]
    assert tagged[0]["mijn_plons_id"] != ""
    together = json.loads(archive.read("samen-plonsen.json"))[0]
    assert together == {"anderen_mogen_mij_taggen": True, "veiligheidsuitleg_gelezen_op": "2026-10-02"}
