""" "Download mijn gegevens": everything the app keeps about one member, as one ZIP.

Each kind of data is a section: a name, its columns, the rows it reads (a queryset of every member's rows,
and `owner`, the path from such a row to its member) and a function that turns one row into the file's
columns. The export filters on `owner` itself and hands the section one row at a time: a section cannot read
another member's rows, because it never gets to query. The ZIP holds every section twice, as `<name>.json`
and `<name>.csv` (cells neutralised like the newsletter CSV), and the member's photos under `fotos/` (the
dips of the "plonsen" section, so they are filtered the same way). A feature that keeps new personal data
adds its section to SECTIONS; nothing else changes.

The background worker writes the archive into a file (apps/logbook/services.py), photos copied in chunks,
so a member with a thousand photos never has them in memory at once and no web worker spends minutes on it.
"""

import csv
import datetime
import io
import json
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.db.models import Model, OuterRef, QuerySet, Subquery
from django.utils import timezone

from apps.accounts.models import User
from apps.attendance.models import Attendance, ShoreSwimmer
from apps.challenges.models import ClubChallengeEntry, Dip, DipBuddy, UserBadge, UserChallenge, photo_storage
from apps.club.models import Brrr, ClubSharing
from apps.core.spreadsheets import BOM, neutralise
from apps.events.models import Event, EventParticipant, EventSeriesMember, EventSeriesSkip, EventWaitlistEntry
from apps.moving_in.models import ImportedObject
from apps.notifications.models import Mail, Notice, NoticePreference, PushSubscription
from apps.shipping.models import PostalAddress
from apps.together.models import MeetupParticipant, Reply

from .export_rows import (
    _attendance,
    _badge,
    _brrr,
    _calendar_and_mail,
    _challenge,
    _club_entry,
    _club_sharing,
    _dip,
    _email_address,
    _event_signup,
    _mail,
    _meetup,
    _moved_in,
    _my_buddy,
    _notice,
    _notice_choice,
    _postal_address,
    _profile,
    _push_device,
    _reply,
    _second_factor,
    _series_membership,
    _series_skip,
    _shore_times,
    _tagged_me,
    _together_settings,
    _waitlist_entry,
    photo_archive_name,
)

Row = TypeVar("Row", bound=Model)

PHOTO_CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True)
class ExportSection(Generic[Row]):
    name: str  # the file name: "plonsen" gives plonsen.json and plonsen.csv
    columns: list[str]
    queryset: QuerySet[Row]  # every member's rows, ordered, with what `row` reads joined in; never evaluated itself
    row: Callable[[Row], dict]
    owner: str = "user"  # the lookup from a row to its member: "user", "pk" for the member's own User row

    def rows_of(self, user: User) -> QuerySet[Row]:
        return self.queryset.filter(**{self.owner: user.pk})

    def export_rows(self, user: User) -> Iterator[dict]:
        for obj in self.rows_of(user).iterator(chunk_size=500):
            yield self.row(obj)


DIPS = ExportSection(
    "plonsen",
    [
        "id",
        "challenge_id",
        "challenge",
        "nummer",
        "datum",
        "geregistreerd_op",
        "watertemperatuur_c",
        "tijd_in_water_seconden",
        "plek",
        "notitie",
        "foto",
        "foto_gedeeld_met_de_club",
    ],
    Dip.objects.select_related("user_challenge__challenge").order_by("created_at", "pk"),
    _dip,
)

SECTIONS: list[ExportSection] = [
    ExportSection(
        "profiel",
        [
            "naam",
            "e-mailadres",
            "nieuwsbrief",
            "nieuwsbrief_gekozen_op",
            "nieuwsbrief_gekozen_via",
            "aangemeld_op",
            "laatst_ingelogd",
        ],
        User.objects.all(),
        _profile,
        owner="pk",
    ),
    ExportSection(
        "challenges",
        ["id", "challenge", "doel_plonsen", "actief", "gestart_op", "voltooid_op"],
        UserChallenge.objects.select_related("challenge").order_by("started_at", "pk"),
        _challenge,
    ),
    DIPS,
    ExportSection(
        "badges",
        ["badge", "mijlpaal_plonsen", "challenge", "verdiend_op", "fysieke_badge", "fysieke_badge_datum"],
        UserBadge.objects.select_related("badge", "user_challenge__challenge").order_by("earned_at", "pk"),
        _badge,
    ),
    ExportSection(
        "clubchallenges",
        ["clubchallenge", "soort", "van", "tot_en_met", "meegedaan_sinds", "voltooid_op"],
        ClubChallengeEntry.objects.select_related("club_challenge").order_by("joined_at", "pk"),
        _club_entry,
    ),
    ExportSection(
        "postadres",
        ["t.a.v.", "straat", "postcode", "plaats", "land", "bijgewerkt_op"],
        PostalAddress.objects.order_by("pk"),
        _postal_address,
    ),
    ExportSection(
        "event-aanmeldingen",
        ["event", "datum", "locatie", "aangemeld_op"],
        EventParticipant.objects.select_related("event").order_by("event__event_date", "pk"),
        _event_signup,
    ),
    ExportSection(
        "wachtlijsten",
        ["event", "datum", "sinds"],
        EventWaitlistEntry.objects.select_related("event").order_by("created_at", "pk"),
        _waitlist_entry,
    ),
    # "Ik kom elke week" (issue 34 §3): the series the member comes to and the dates they skipped.
    ExportSection(
        "reeksen",
        ["reeks", "tot_en_met", "elke_week_sinds"],
        EventSeriesMember.objects.select_related("series")
        .annotate(
            title=Subquery(
                Event.objects.filter(series_id=OuterRef("series_id")).order_by("event_date").values("title")[:1]
            )
        )
        .order_by("created_at", "pk"),
        _series_membership,
    ),
    ExportSection(
        "reeksen-overgeslagen",
        ["event", "datum", "afgemeld_op"],
        EventSeriesSkip.objects.select_related("event").order_by("event__event_date", "pk"),
        _series_skip,
    ),
    ExportSection(
        "aanwezigheid",
        ["event", "datum", "afgetekend_door", "afgetekend_op", "plons_id"],
        Attendance.objects.select_related("event", "signed_off_by").order_by("event__event_date", "pk"),
        _attendance,
    ),
    # "Aan de waterkant": kept on the day of the swim only (forget_shore_times), so only then in the export.
    ExportSection(
        "aan-de-waterkant",
        ["event", "datum", "het_water_in_om", "eruit_om"],
        ShoreSwimmer.objects.select_related("shore_list__event").order_by("shore_list__event__event_date", "pk"),
        _shore_times,
    ),
    ExportSection(
        "agenda-en-e-mail",
        [
            "agenda_abonnement",
            "agenda_abonnement_sinds",
            "mail_over_mijn_events",
            "herinnering_na_14_dagen",
            "mail_bij_brrr",
        ],
        User.objects.select_related("calendar_feed", "mail_preference"),
        _calendar_and_mail,
        owner="pk",
    ),
    ExportSection(
        "e-mails",
        ["soort", "event", "status", "aangemaakt_op", "verstuurd_op"],
        # A mail names its event by id (notifications sits below events): the title is read in the same query.
        Mail.objects.annotate(
            event_title=Subquery(Event.objects.filter(pk=OuterRef("event_id")).values("title")[:1])
        ).order_by("created_at", "pk"),
        _mail,
    ),
    ExportSection(
        "meldingen-apparaten",
        ["apparaat", "aangemaakt_op", "laatst_gezien"],
        PushSubscription.objects.order_by("created_at", "pk"),
        _push_device,
    ),
    ExportSection(
        "meldingen-keuzes", ["soort", "hoe"], NoticePreference.objects.order_by("kind", "pk"), _notice_choice
    ),
    ExportSection(
        "meldingen",
        ["soort", "titel", "tekst", "status", "aangemaakt_op", "verstuurd_op"],
        Notice.objects.order_by("created_at", "pk"),
        _notice,
    ),
    ExportSection(
        "plonsafspraken",
        ["wanneer", "waar", "opmerking", "door_mij_voorgesteld", "geannuleerd_op", "ik_ga_mee_sinds"],
        MeetupParticipant.objects.select_related("meetup").order_by("meetup__starts_at", "pk"),
        _meetup,
    ),
    ExportSection(
        "reacties",
        ["bij", "geschreven_op", "tekst"],
        Reply.objects.select_related("meetup", "event").order_by("created_at", "pk"),
        _reply,
        owner="author",
    ),
    ExportSection(
        "buddies-bij-mijn-plonsen",
        ["plons_id", "datum", "buddy", "status"],
        DipBuddy.objects.select_related("dip", "buddy").order_by("dip__created_at", "pk"),
        _my_buddy,
        owner="dip__user",
    ),
    ExportSection(
        "getagd-door-clubgenoten",
        ["datum", "door", "status", "beantwoord_op", "mijn_plons_id"],
        DipBuddy.objects.select_related("dip__user").order_by("created_at", "pk"),
        _tagged_me,
        owner="buddy",
    ),
    ExportSection(
        "samen-plonsen",
        ["anderen_mogen_mij_taggen", "veiligheidsuitleg_gelezen_op"],
        User.objects.all(),
        _together_settings,
        owner="pk",
    ),
    ExportSection(
        "inlogmethoden",
        ["soort", "naam", "aangemaakt_op", "laatst_gebruikt"],
        Authenticator.objects.order_by("created_at", "pk"),
        _second_factor,
    ),
    ExportSection(
        "club-delen",
        ["deel_mijn_plonsen_met_de_club", "gekozen_op"],
        ClubSharing.objects.order_by("pk"),
        _club_sharing,
    ),
    ExportSection(
        "brrr-gegeven",
        ["soort", "id", "gegeven_op"],
        Brrr.objects.order_by("created_at", "pk"),
        _brrr,
    ),
    ExportSection(
        "e-mailadressen",
        ["e-mailadres", "bevestigd", "in_gebruik"],
        EmailAddress.objects.order_by("-primary", "pk"),
        _email_address,
    ),
    ExportSection(
        "overgezet-uit-de-oude-app",
        ["soort", "id_in_de_oude_app", "id_hier", "overgezet_op", "eerste_keer_ingelogd"],
        ImportedObject.objects.order_by("imported_at", "pk"),
        _moved_in,
    ),
]


def export_filename(today: datetime.date | None = None) -> str:
    return f"mijn-gegevens-{(today or timezone.localdate()).isoformat()}.zip"


def _json_value(value):
    if isinstance(value, Decimal):
        return float(value)
    return value


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "ja" if value else "nee"
    if isinstance(value, Decimal):
        return f"{value}".replace(".", ",")
    return neutralise(str(value))


def _section_files(section: ExportSection, rows: list[dict]) -> tuple[bytes, bytes]:
    as_json = json.dumps([{k: _json_value(v) for k, v in row.items()} for row in rows], ensure_ascii=False, indent=2)
    out = io.StringIO()
    # ';' with the BOM: Dutch Excel (comma is its decimal mark) opens the file in columns.
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(section.columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in section.columns])
    return as_json.encode(), (BOM + out.getvalue()).encode()


def export_write(user: User, target) -> None:
    """Write the member's ZIP into `target`, a writable binary file."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for section in SECTIONS:
            as_json, as_csv = _section_files(section, list(section.export_rows(user)))
            archive.writestr(f"{section.name}.json", as_json)
            archive.writestr(f"{section.name}.csv", as_csv)
        storage = photo_storage()
        dips = (
            DIPS.rows_of(user)
            .exclude(photo="")
            .only("pk", "number", "dip_date", "created_at", "photo", "user_challenge__challenge__name")
        )
        for dip in dips.iterator(chunk_size=200):
            try:
                source = storage.open(dip.photo.name, "rb")
            except FileNotFoundError:
                continue  # a file lost from storage must not cost the member the rest of their export
            # JPEGs are compressed already: stored as they are.
            entry = zipfile.ZipInfo(
                photo_archive_name(dip), date_time=timezone.localtime(dip.created_at).timetuple()[:6]
            )
            entry.compress_type = zipfile.ZIP_STORED
            with source, archive.open(entry, "w") as target_entry:
                while chunk := source.read(PHOTO_CHUNK_BYTES):
                    target_entry.write(chunk)
