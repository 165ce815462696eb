"""The rows of the member's export (apps/logbook/export.py): one function per section that turns one of the
member's rows into the file's columns, and the archive name of a dip's photo."""

import datetime
from typing import TYPE_CHECKING, TypedDict

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.utils import timezone
from django.utils.text import slugify

from apps.accounts.models import User
from apps.attendance.models import Attendance, ShoreSwimmer
from apps.challenges.models import ClubChallengeEntry, Dip, DipBuddy, UserBadge, UserChallenge
from apps.club.models import Brrr, ClubSharing
from apps.events.models import EventParticipant, EventSeriesMember, EventSeriesSkip, EventWaitlistEntry
from apps.moving_in.models import ImportedObject
from apps.notifications.models import Mail, Notice, NoticePreference, PushSubscription
from apps.notifications.registry import KINDS, MAIL_KINDS
from apps.shipping.models import PostalAddress
from apps.together.models import MeetupParticipant, Reply

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

PHOTO_FOLDER = "fotos"


def _moment(value: datetime.datetime | None) -> str:
    return timezone.localtime(value).isoformat() if value else ""


def _profile(user: User) -> dict:
    return {
        "naam": user.full_name,
        "e-mailadres": user.email,
        "nieuwsbrief": user.newsletter_consent,
        # When and where the newsletter choice was made (the consent the club must be able to show).
        "nieuwsbrief_gekozen_op": _moment(user.newsletter_consent_at),
        "nieuwsbrief_gekozen_via": user.newsletter_consent_source,
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


# A dip registered without a stamp card (it counted for the member's club challenges only).
WITHOUT_CARD = "zonder stempelkaart"


def _card_name(dip) -> str:
    return dip.user_challenge.challenge.name if dip.user_challenge_id is not None else WITHOUT_CARD


def photo_archive_name(dip) -> str:
    challenge = slugify(_card_name(dip))
    return f"{PHOTO_FOLDER}/{dip.dip_date.isoformat()}_{challenge}_plons-{dip.number}_{dip.pk}.jpg"


def _dip(dip: Dip) -> dict:
    return {
        "id": dip.pk,
        "challenge_id": dip.user_challenge_id,
        "challenge": _card_name(dip),
        "nummer": dip.number,
        "datum": dip.dip_date.isoformat(),
        "geregistreerd_op": _moment(dip.created_at),
        "watertemperatuur_c": dip.water_temperature,
        "tijd_in_water_seconden": dip.duration_seconds,
        "plek": dip.spot,
        "notitie": dip.note,
        "foto": photo_archive_name(dip) if dip.photo else "",
        "foto_gedeeld_met_de_club": dip.share_photo,
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


def _club_entry(entry: ClubChallengeEntry) -> dict:
    challenge = entry.club_challenge
    return {
        "clubchallenge": challenge.name,
        "soort": challenge.kind_display,
        "van": challenge.starts_on.isoformat(),
        "tot_en_met": challenge.ends_on.isoformat(),
        "meegedaan_sinds": _moment(entry.joined_at),
        "voltooid_op": _moment(entry.completed_at),
    }


def _club_sharing(sharing: ClubSharing) -> dict:
    return {"deel_mijn_plonsen_met_de_club": sharing.share_dips, "gekozen_op": _moment(sharing.chosen_at)}


def _brrr(brrr: Brrr) -> dict:
    # The item by its kind and id only: whose item it was is another member's business.
    return {"soort": brrr.kind, "id": brrr.object_id, "gegeven_op": _moment(brrr.created_at)}


def _event_signup(signup: EventParticipant) -> dict:
    return {
        "event": signup.event.title,
        "datum": _moment(signup.event.event_date),
        "locatie": signup.event.location,
        "aangemeld_op": _moment(signup.created_at),
    }


def _series_membership(membership: EventSeriesMember) -> dict:
    return {
        "reeks": getattr(membership, "title", None) or str(membership.series),
        "tot_en_met": membership.series.repeat_until.isoformat(),
        "elke_week_sinds": _moment(membership.created_at),
    }


def _series_skip(skip: EventSeriesSkip) -> dict:
    return {
        "event": skip.event.title,
        "datum": _moment(skip.event.event_date),
        "afgemeld_op": _moment(skip.created_at),
    }


def _attendance(record: Attendance) -> dict:
    organiser = record.signed_off_by
    return {
        "event": record.event.title,
        "datum": _moment(record.event.event_date),
        "afgetekend_door": organiser.display_name if organiser is not None else "",
        "afgetekend_op": _moment(record.created_at),
        "plons_id": record.dip_id or "",
    }


def _shore_times(swimmer: ShoreSwimmer) -> dict:
    event = swimmer.shore_list.event
    return {
        "event": event.title,
        "datum": _moment(event.event_date),
        "het_water_in_om": _moment(swimmer.went_in_at),
        "eruit_om": _moment(swimmer.came_out_at),
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
    return {
        "event": entry.event.title,
        "datum": _moment(entry.event.event_date),
        "sinds": _moment(entry.created_at),
        "plek_aangeboden_op": _moment(entry.offered_at) if entry.offered_at else None,
        "aanbod_geldig_tot": _moment(entry.offer_expires_at) if entry.offer_expires_at else None,
    }


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
        "mail_bij_brrr": preference.club_notices if preference else True,
    }


def mail_kind_name(name: str) -> str:
    kind = MAIL_KINDS.get(name)
    return kind.verbose if kind else name


class _MailEventTitle(TypedDict):
    event_title: str | None  # the annotation of the "e-mails" section's query


def _mail(mail: "WithAnnotations[Mail, _MailEventTitle]") -> dict:
    return {
        "soort": mail_kind_name(mail.kind),
        "event": mail.event_title or "",
        "status": mail.get_status_display(),
        "aangemaakt_op": _moment(mail.created_at),
        "verstuurd_op": _moment(mail.sent_at),
    }


def _push_device(device: PushSubscription) -> dict:
    return {
        "apparaat": device.device_label,
        "aangemaakt_op": _moment(device.created_at),
        "laatst_gezien": _moment(device.last_seen_at),
    }


def _notice_choice(choice: NoticePreference) -> dict:
    kind = KINDS.get(choice.kind)
    return {"soort": kind.label if kind else choice.kind, "hoe": choice.get_channel_display()}


def _notice(notice: Notice) -> dict:
    kind = KINDS.get(notice.kind)
    return {
        "soort": kind.label if kind else notice.kind,
        "titel": notice.title,
        "tekst": notice.body,
        "status": notice.get_status_display(),
        "aangemaakt_op": _moment(notice.created_at),
        "verstuurd_op": _moment(notice.sent_at),
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


def _moved_in(imported: ImportedObject) -> dict:
    # What the move from the original app keeps: which old id became which row here (no photo keys: they
    # name the old bucket's files, which the member's own photos section already carries).
    return {
        "soort": imported.get_kind_display(),
        "id_in_de_oude_app": imported.old_id,
        "id_hier": imported.new_id,
        "overgezet_op": _moment(imported.imported_at),
        "eerste_keer_ingelogd": _moment(imported.first_sign_in_at),
    }


def _meetup(place: MeetupParticipant) -> dict:
    meetup = place.meetup
    return {
        "wanneer": _moment(meetup.starts_at),
        "waar": meetup.place,
        "opmerking": meetup.note,
        "door_mij_voorgesteld": meetup.proposer_id == place.user_id,
        "geannuleerd_op": _moment(meetup.cancelled_at),
        "ik_ga_mee_sinds": _moment(place.created_at),
    }


def _reply(reply: Reply) -> dict:
    if reply.meetup is not None:
        where = f"plonsafspraak: {reply.meetup.place}, {_moment(reply.meetup.starts_at)}"
    else:
        where = f"event: {reply.event.title}" if reply.event is not None else ""
    return {"bij": where, "geschreven_op": _moment(reply.created_at), "tekst": reply.text}


def _my_buddy(tag: DipBuddy) -> dict:
    return {
        "plons_id": tag.dip_id,
        "datum": tag.dip.dip_date.isoformat(),
        "buddy": tag.buddy.display_name,
        "status": tag.get_status_display(),
    }


def _tagged_me(tag: DipBuddy) -> dict:
    return {
        "datum": tag.dip.dip_date.isoformat(),
        "door": tag.dip.user.display_name,
        "status": tag.get_status_display(),
        "beantwoord_op": _moment(tag.decided_at),
        "mijn_plons_id": tag.buddy_dip_id or "",
    }


def _together_settings(user: User) -> dict:
    return {
        "anderen_mogen_mij_taggen": user.tagging_allowed,
        "veiligheidsuitleg_gelezen_op": user.safety_briefing_read_on.isoformat()
        if user.safety_briefing_read_on
        else "",
    }
