""" "Download mijn gegevens": everything the app keeps about one member, as one ZIP.

Each kind of data is a section: a name, its columns and a function that reads the member's rows. The
ZIP holds every section twice, as `<name>.json` and `<name>.csv` (cells neutralised like the newsletter
CSV), and the member's photos under `fotos/`. A feature that keeps new personal data adds its section to
SECTIONS; nothing else changes.

The background worker writes the archive into a file (apps/logbook/services.py), photos copied in chunks,
so a member with a thousand photos never has them in memory at once and no web worker spends minutes on it.
"""

import csv
import datetime
import io
import json
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.utils import timezone
from django.utils.text import slugify

from apps.accounts.models import User
from apps.challenges.models import Dip, UserBadge, UserChallenge, photo_storage
from apps.core.spreadsheets import BOM, neutralise
from apps.events.models import CalendarFeed, Event, EventParticipant, EventWaitlistEntry
from apps.notifications.models import Mail, MailPreference
from apps.shipping.models import PostalAddress

PHOTO_CHUNK_BYTES = 256 * 1024
PHOTO_FOLDER = "fotos"


@dataclass(frozen=True)
class ExportSection:
    name: str  # the file name: "plonsen" gives plonsen.json and plonsen.csv
    columns: list[str]
    rows: Callable[[User], Iterable[dict]]


def _moment(value: datetime.datetime | None) -> str:
    return timezone.localtime(value).isoformat() if value else ""


def _profile(user: User) -> Iterable[dict]:
    yield {
        "naam": user.full_name,
        "e-mailadres": user.email,
        "nieuwsbrief": user.newsletter_consent,
        "aangemeld_op": _moment(user.created_at),
        "laatst_ingelogd": _moment(user.last_login),
    }


def _challenges(user: User) -> Iterable[dict]:
    for card in UserChallenge.objects.filter(user=user).select_related("challenge").order_by("started_at", "pk"):
        yield {
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


def _dips(user: User) -> Iterable[dict]:
    dips = Dip.objects.filter(user=user).select_related("user_challenge__challenge").order_by("created_at", "pk")
    for dip in dips.iterator(chunk_size=500):
        yield {
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


def _badges(user: User) -> Iterable[dict]:
    awards = UserBadge.objects.filter(user=user).select_related("badge", "user_challenge__challenge")
    for award in awards.order_by("earned_at", "pk"):
        yield {
            "badge": award.badge.name,
            "mijlpaal_plonsen": award.badge.milestone_dips,
            "challenge": award.user_challenge.challenge.name,
            "verdiend_op": _moment(award.earned_at),
            "fysieke_badge": award.get_physical_status_display(),
            "fysieke_badge_datum": award.physical_status_on.isoformat() if award.physical_status_on else "",
        }


def _event_signups(user: User) -> Iterable[dict]:
    signups = EventParticipant.objects.filter(user=user).select_related("event").order_by("event__event_date", "pk")
    for signup in signups:
        yield {
            "event": signup.event.title,
            "datum": _moment(signup.event.event_date),
            "locatie": signup.event.location,
            "aangemeld_op": _moment(signup.created_at),
        }


def _postal_address(user: User) -> Iterable[dict]:
    for address in PostalAddress.objects.filter(user=user):
        yield {
            "t.a.v.": address.recipient,
            "straat": address.street,
            "postcode": address.postcode,
            "plaats": address.city,
            "land": address.country,
            "bijgewerkt_op": _moment(address.updated_at),
        }


def _waitlist(user: User) -> Iterable[dict]:
    entries = EventWaitlistEntry.objects.filter(user=user).select_related("event").order_by("created_at", "pk")
    for entry in entries:
        yield {"event": entry.event.title, "datum": _moment(entry.event.event_date), "sinds": _moment(entry.created_at)}


def _calendar_and_mail(user: User) -> Iterable[dict]:
    # The calendar link's token is a credential, not data about the member: only whether there is one.
    feed = CalendarFeed.objects.filter(user=user).first()
    preference = MailPreference.objects.filter(user=user).first()
    yield {
        "agenda_abonnement": feed is not None,
        "agenda_abonnement_sinds": _moment(feed.created_at) if feed else "",
        "mail_over_mijn_events": preference.event_mails if preference else True,
        "herinnering_na_14_dagen": preference.dip_nudge if preference else False,
    }


def _mails(user: User) -> Iterable[dict]:
    mails = list(Mail.objects.filter(user=user).order_by("created_at", "pk"))
    titles = dict(Event.objects.filter(pk__in={mail.event_id for mail in mails}).values_list("pk", "title"))
    for mail in mails:
        yield {
            "soort": mail.get_kind_display(),
            "event": titles.get(mail.event_id, ""),
            "status": mail.get_status_display(),
            "aangemaakt_op": _moment(mail.created_at),
            "verstuurd_op": _moment(mail.sent_at),
        }


def _second_factors(user: User) -> Iterable[dict]:
    # Which factors there are and when they were used; never a key, a secret or a recovery code.
    for factor in Authenticator.objects.filter(user=user).order_by("created_at", "pk"):
        yield {
            "soort": factor.get_type_display(),
            "naam": factor.data.get("name", "") if factor.type == Authenticator.Type.WEBAUTHN else "",
            "aangemaakt_op": _moment(factor.created_at),
            "laatst_gebruikt": _moment(factor.last_used_at),
        }


def _email_addresses(user: User) -> Iterable[dict]:
    # The address in use and one waiting for its confirmation link (a change asked on /account).
    for address in EmailAddress.objects.filter(user=user).order_by("-primary", "pk"):
        yield {"e-mailadres": address.email, "bevestigd": address.verified, "in_gebruik": address.primary}


SECTIONS: list[ExportSection] = [
    ExportSection("profiel", ["naam", "e-mailadres", "nieuwsbrief", "aangemeld_op", "laatst_ingelogd"], _profile),
    ExportSection(
        "challenges", ["id", "challenge", "doel_plonsen", "actief", "gestart_op", "voltooid_op"], _challenges
    ),
    ExportSection(
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
        _dips,
    ),
    ExportSection(
        "badges",
        ["badge", "mijlpaal_plonsen", "challenge", "verdiend_op", "fysieke_badge", "fysieke_badge_datum"],
        _badges,
    ),
    ExportSection("postadres", ["t.a.v.", "straat", "postcode", "plaats", "land", "bijgewerkt_op"], _postal_address),
    ExportSection("event-aanmeldingen", ["event", "datum", "locatie", "aangemeld_op"], _event_signups),
    ExportSection("wachtlijsten", ["event", "datum", "sinds"], _waitlist),
    ExportSection(
        "agenda-en-e-mail",
        ["agenda_abonnement", "agenda_abonnement_sinds", "mail_over_mijn_events", "herinnering_na_14_dagen"],
        _calendar_and_mail,
    ),
    ExportSection("e-mails", ["soort", "event", "status", "aangemaakt_op", "verstuurd_op"], _mails),
    ExportSection("inlogmethoden", ["soort", "naam", "aangemaakt_op", "laatst_gebruikt"], _second_factors),
    ExportSection("e-mailadressen", ["e-mailadres", "bevestigd", "in_gebruik"], _email_addresses),
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
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(section.columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in section.columns])
    return as_json.encode(), (BOM + out.getvalue()).encode()


def export_write(user: User, target) -> None:
    """Write the member's ZIP into `target`, a writable binary file."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for section in SECTIONS:
            as_json, as_csv = _section_files(section, list(section.rows(user)))
            archive.writestr(f"{section.name}.json", as_json)
            archive.writestr(f"{section.name}.csv", as_csv)
        storage = photo_storage()
        dips = (
            Dip.objects.filter(user=user)
            .exclude(photo="")
            .select_related("user_challenge__challenge")
            .only("pk", "number", "dip_date", "created_at", "photo", "user_challenge__challenge__name")
            .order_by("created_at", "pk")
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
