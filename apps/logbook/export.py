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
from typing import TYPE_CHECKING, Generic, TypedDict, TypeVar

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.db.models import Model, OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.text import slugify

from apps.accounts.models import User
from apps.challenges.models import Dip, UserBadge, UserChallenge, photo_storage
from apps.core.spreadsheets import BOM, neutralise
from apps.events.models import Event, EventParticipant, EventWaitlistEntry
from apps.notifications.models import Mail
from apps.shipping.models import PostalAddress

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

Row = TypeVar("Row", bound=Model)

PHOTO_CHUNK_BYTES = 256 * 1024
PHOTO_FOLDER = "fotos"


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


def _moment(value: datetime.datetime | None) -> str:
    return timezone.localtime(value).isoformat() if value else ""


def _profile(user: User) -> dict:
    return {
        "naam": user.full_name,
        "e-mailadres": user.email,
        "nieuwsbrief": user.newsletter_consent,
        "aangemeld_op": _moment(user.created_at),
        "laatst_ingelogd": _moment(user.last_login),
    }


def _challenge(card: UserChallenge) -> dict:
    return {
        "id": card.pk,
        "challenge": card.challenge.name,
        "doel_plonsen": card.challenge.target_dips,
        "actief": card.is_active,
        "gestart_op": _moment(card.started_at),
        "voltooid_op": _moment(card.completed_at),
    }


def photo_archive_name(dip) -> str:
    challenge = slugify(dip.user_challenge.challenge.name)
    return f"{PHOTO_FOLDER}/{dip.dip_date.isoformat()}_{challenge}_plons-{dip.number}_{dip.pk}.jpg"


def _dip(dip: Dip) -> dict:
    return {
        "id": dip.pk,
        "challenge_id": dip.user_challenge_id,
        "challenge": dip.user_challenge.challenge.name,
        "nummer": dip.number,
        "datum": dip.dip_date.isoformat(),
        "geregistreerd_op": _moment(dip.created_at),
        "watertemperatuur_c": dip.water_temperature,
        "tijd_in_water_seconden": dip.duration_seconds,
        "plek": dip.spot,
        "notitie": dip.note,
        "foto": photo_archive_name(dip) if dip.photo else "",
    }


def _badge(award: UserBadge) -> dict:
    return {
        "badge": award.badge.name,
        "mijlpaal_plonsen": award.badge.milestone_dips,
        "challenge": award.user_challenge.challenge.name,
        "verdiend_op": _moment(award.earned_at),
        "fysieke_badge": award.get_physical_status_display(),
        "fysieke_badge_datum": award.physical_status_on.isoformat() if award.physical_status_on else "",
    }


def _event_signup(signup: EventParticipant) -> dict:
    return {
        "event": signup.event.title,
        "datum": _moment(signup.event.event_date),
        "locatie": signup.event.location,
        "aangemeld_op": _moment(signup.created_at),
    }


def _postal_address(address: PostalAddress) -> dict:
    return {
        "t.a.v.": address.recipient,
        "straat": address.street,
        "postcode": address.postcode,
        "plaats": address.city,
        "land": address.country,
        "bijgewerkt_op": _moment(address.updated_at),
    }


def _waitlist_entry(entry: EventWaitlistEntry) -> dict:
    return {"event": entry.event.title, "datum": _moment(entry.event.event_date), "sinds": _moment(entry.created_at)}


def _calendar_and_mail(user: User) -> dict:
    # The calendar link's token is a credential, not data about the member: only whether there is one.
    # Both are reached from the member's own row (joined in); a missing one-to-one reads as None.
    feed = getattr(user, "calendar_feed", None)
    preference = getattr(user, "mail_preference", None)
    return {
        "agenda_abonnement": feed is not None,
        "agenda_abonnement_sinds": _moment(feed.created_at) if feed else "",
        "mail_over_mijn_events": preference.event_mails if preference else True,
        "herinnering_na_14_dagen": preference.dip_nudge if preference else False,
    }


class _MailEventTitle(TypedDict):
    event_title: str | None  # the annotation of the "e-mails" section's query


def _mail(mail: "WithAnnotations[Mail, _MailEventTitle]") -> dict:
    return {
        "soort": mail.get_kind_display(),
        "event": mail.event_title or "",
        "status": mail.get_status_display(),
        "aangemaakt_op": _moment(mail.created_at),
        "verstuurd_op": _moment(mail.sent_at),
    }


def _second_factor(factor: Authenticator) -> dict:
    # Which factors there are and when they were used; never a key, a secret or a recovery code.
    return {
        "soort": factor.get_type_display(),
        "naam": factor.data.get("name", "") if factor.type == Authenticator.Type.WEBAUTHN else "",
        "aangemaakt_op": _moment(factor.created_at),
        "laatst_gebruikt": _moment(factor.last_used_at),
    }


def _email_address(address: EmailAddress) -> dict:
    # The address in use and one waiting for its confirmation link (a change asked on /account).
    return {"e-mailadres": address.email, "bevestigd": address.verified, "in_gebruik": address.primary}


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
    ],
    Dip.objects.select_related("user_challenge__challenge").order_by("created_at", "pk"),
    _dip,
)

SECTIONS: list[ExportSection] = [
    ExportSection(
        "profiel",
        ["naam", "e-mailadres", "nieuwsbrief", "aangemeld_op", "laatst_ingelogd"],
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
    ExportSection(
        "agenda-en-e-mail",
        ["agenda_abonnement", "agenda_abonnement_sinds", "mail_over_mijn_events", "herinnering_na_14_dagen"],
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
        "inlogmethoden",
        ["soort", "naam", "aangemaakt_op", "laatst_gebruikt"],
        Authenticator.objects.order_by("created_at", "pk"),
        _second_factor,
    ),
    ExportSection(
        "e-mailadressen",
        ["e-mailadres", "bevestigd", "in_gebruik"],
        EmailAddress.objects.order_by("-primary", "pk"),
        _email_address,
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
