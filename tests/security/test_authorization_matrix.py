"""The authorization matrix: every URL pattern of the project, for anonymous, member, another member, admin,
a bare admin (the admin role without a second factor: refused like a member wherever a member is, and
at the admin URLs shown the way to set up a factor on /account instead of the dashboard) and an organiser
("Organisator" with a second factor: as an admin on the /admin views that declare the organiser,
`staff_role`; refused like a member on every other admin URL, the Django admin and others' photos included).

The patterns are not listed by hand: they are read from `get_resolver()` (ours, allauth's and Django
admin's). `ACCESS` says which access decision each one has; a pattern without an entry fails
`test_every_url_pattern_has_an_access_decision`, so a new URL cannot ship without a decision.
Patterns under /django-admin/ are classified by that prefix: Django's admin site guards them all.

For every pattern and every role one request is made with a concrete URL (the ids are real objects
of the member: their dip with a photo, their challenge; an event; an invitation; the other member
to delete...). The request is the route's own method (POST endpoints are POSTed; the test client
passes CSRF, which tests/security/test_bad_input.py checks separately). The answer must match the
decision: status code, redirect target, JSON error; never a 500. A refused request, and every GET,
must leave the database exactly as it was.
"""

import datetime
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.contrib.messages import get_messages
from django.core.files.base import ContentFile
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.utils import timezone

from apps.accounts.access import MESSAGE_ADMIN_SESSION_EXPIRED, MESSAGE_NO_ADMIN, MESSAGE_SESSION_EXPIRED, StaffRole
from apps.accounts.models import User, UserRole
from apps.accounts.second_factor import MESSAGE_SECOND_FACTOR_REQUIRED
from apps.attendance.models import Attendance, ShoreList, ShoreSwimmer
from apps.challenges.models import ClubChallenge, ClubChallengeEntry, Dip, UserBadge, UserChallenge
from apps.club.models import Brrr, ClubSharing, HiddenItem
from apps.club.services import MESSAGE_BRRR_NOT_HERE, MESSAGE_NOT_ADMIN
from apps.club.views import MESSAGE_HIDDEN, MESSAGE_SHARING_OFF
from apps.events.models import CalendarFeed, Event, EventParticipant, EventSeriesMember
from apps.events.services import (
    MESSAGE_CALENDAR_CREATED,
    MESSAGE_CALENDAR_RENEWED,
    MESSAGE_GUESTS_INVITED,
    MESSAGE_OFFER_NONE,
    MESSAGE_SERIES_LEFT,
    MESSAGE_SERIES_NOT_MEMBER,
    SeriesJoin,
)
from apps.invitations.models import Invitation
from apps.logbook.models import MemberExport
from apps.logbook.views import MESSAGE_EXPORT_REQUESTED
from apps.notifications.links import UnsubscribeScope, unsubscribe_token
from apps.notifications.models import Mail, MailPreference, NoticePreference, PushSubscription
from apps.notifications.services import MESSAGE_PUSH_OFF
from apps.shipping.models import PostalAddress
from tests.factories import (
    DEFAULT_PASSWORD,
    EventFactory,
    EventParticipantFactory,
    EventSeriesFactory,
    PushSubscriptionFactory,
)

from .conftest import ROLES, World, database_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(world_once):
    """One world for the whole matrix, each case rolled back to it (tests/security/conftest.py)."""
    return world_once


DJANGO_ADMIN_PREFIX = "django-admin/"

# --- the access decisions -------------------------------------------------------------------------
#
# public          anyone, signed in or not: 200
# guest           the sign-in page: 200 for visitors, a signed-in user goes to /dashboard
# redirect        a fixed redirect for everyone (allauth's own page names, leading to /auth)
# post_any        a form anyone may send (sign-out): a POST ends where it says; a GET shows the form
# member          a signed-in member's page: anonymous to /auth?next=…
# member_post     a signed-in member's form (POST only): anonymous to /auth?next=<the form's page> with the
#                 session message, acts on the own data only
# member_json     a signed-in member's JSON endpoint: anonymous gets 401 JSON
# owner_or_admin  a member's private object (a photo): the owner and admins; others 404 as if it did not exist
# admin           the admin screen: anonymous to /auth?next=…, members to /dashboard with 'Je hebt geen admin rechten'
# admin_json      admin JSON endpoints: anonymous 401 JSON, members 403 JSON, nothing changed
# django_admin    Django's admin site: anonymous and members to its login (which is /auth); the admin role only
# shadowed        a pattern an earlier one answers for (its URL never reaches it)
# allauth_member  allauth's MFA pages of the signed-in member: anonymous to /auth/login/?next=… (which is /auth)
# reauth_member   like allauth_member, but a session alone is not enough: signed-in users first to
#                 /auth/opnieuw/?next=… (the password or a passkey again; tests/accounts/test_reauthentication.py)
# allauth_stage   a step of a sign-in: without one, visitors to /auth/login/ and signed-in users to /dashboard
# token           for machines with the token of a setting (GET /status, STATUS_TOKEN): a session is no token, so
#                 every role gets 403, or 404 while the setting is empty (tests/operations/ send the token)

ACCESS: dict[str, str] = {
    "landing": "public",
    "healthz": "public",
    # The Systeemstatus for uptime monitors: `Authorization: Bearer <STATUS_TOKEN>` only.
    "operations_status": "token",
    "privacy": "public",
    "favicon": "redirect",
    # The service worker and its offline page: the same for everyone, nothing personal.
    "service_worker": "public",
    "offline": "public",
    "auth": "guest",
    "logout": "post_any",
    "account_logout": "post_any",
    "account_login": "redirect",
    "account_signup": "redirect",
    # Password reset: anyone may ask; the key in the link is the credential.
    "account_reset_password": "public",
    "account_reset_password_done": "public",
    "account_reset_password_from_key": "public",
    "account_reset_password_from_key_done": "public",
    "dashboard": "member",
    "account": "member",
    "statistics": "member",
    # The export: asked for with a POST, downloaded through a short-lived link signed for its owner.
    "account_export": "member_post",
    "account_export_download": "member",
    "account_export_file": "member",
    "account_profile": "member_post",
    "account_password": "member_post",
    "account_delete": "member_post",
    "challenge": "member",
    "challenge_start": "member_post",
    "dip_register": "member_json",
    "challenge_stop": "member_post",
    "dip_update": "member_json",
    "dip_undo": "member_json",
    "dip_photo": "owner_or_admin",
    "dip_thumbnail": "owner_or_admin",
    "event_join": "member_post",
    "event_leave": "member_post",
    "event_offer_accept": "member_post",
    "event_offer_decline": "member_post",
    "event_series_join": "member_post",
    "event_series_leave": "member_post",
    "event_ics": "member",
    # The old list of events: one list with the plonsafspraken now (/samen), for everyone a redirect there.
    "events": "redirect",
    # An event's guest link and a guest's signed confirmation and cancel links: the token is the credential (a
    # wrong one is a 404, test_a_wrong_guest_token_is_a_404_for_everyone below).
    "event_guest_sign_up": "public",
    "event_guest_confirm": "public",
    "event_guest_cancel": "public",
    "calendar_renew": "member_post",
    # The secret token in the URL is the credential: a calendar app fetches it without a session.
    "calendar_feed": "public",
    # A signed token that can only turn mail off; RFC 8058's one-click POST comes without a session.
    "mail_unsubscribe": "public",
    "mail_preferences": "member_post",
    # Meldingen: the browser's subscription (JSON), a device removed, the choices per kind.
    "notice_subscribe": "member_json",
    "notice_device_delete": "member_post",
    "notice_preferences": "member_post",
    # Samen plonsen: the member's own place on an afspraak, their own buddy requests and setting.
    "together": "member",
    "meetup_propose": "member_post",
    "meetup_join": "member_post",
    "meetup_leave": "member_post",
    "meetup_cancel": "member_post",
    # An afspraak's own page, and replies under afspraken and events: every signed-in member of the club; a reply
    # is removed by its writer or an admin (the service refuses anyone else).
    "meetup": "member",
    "meetup_reply": "member_post",
    "event_reply": "member_post",
    "reply_delete": "member_post",
    "buddy_accept": "member_post",
    "buddy_decline": "member_post",
    "buddy_candidates": "member_json",
    "tagging_setting": "member_post",
    "veilig": "member",
    "briefing_read": "member_json",
    "adminpanel": "admin",
    "adminpanel_newsletter_export": "admin",
    "adminpanel_photos": "admin_json",
    "adminpanel_invitations": "admin_json",
    "adminpanel_invitation_create": "admin_json",
    "adminpanel_invitation_bulk": "admin_json",
    "adminpanel_invitation_delete": "admin_json",
    "adminpanel_invitation_resend": "admin_json",
    "adminpanel_users": "admin_json",
    "adminpanel_user_delete": "admin_json",
    "adminpanel_user_organiser": "admin_json",
    "adminpanel_audit_log": "admin",
    "adminpanel_newsletter_xlsx": "admin",
    "adminpanel_users_xlsx": "admin",
    "adminpanel_to_send_xlsx": "admin",
    "adminpanel_to_send_csv": "admin",
    "adminpanel_physical": "admin",
    "adminpanel_club_message": "admin",
    "adminpanel_physical_mark": "admin",
    "adminpanel_club_challenges": "admin",
    "adminpanel_club_challenge_delete": "admin",
    "club_challenge_join": "member_post",
    "club_challenge_leave": "member_post",
    "club_dip_register": "member_post",
    "club_dip_undo": "member_post",
    "adminpanel_events": "admin",
    "adminpanel_event_new": "admin",
    "adminpanel_event": "admin",
    "adminpanel_event_edit": "admin",
    "adminpanel_event_cancel": "admin",
    "adminpanel_event_attendance": "admin",
    "adminpanel_event_guests_invite": "admin",
    "adminpanel_event_lists_csv": "admin",
    "adminpanel_event_lists_xlsx": "admin",
    # "Aan de waterkant": the organisers (and admins) of a club swim, on the day; members get the usual refusal.
    "event_waterkant": "admin",
    "event_waterkant_state": "admin_json",
    "event_waterkant_tap": "admin_json",
    "event_waterkant_member": "admin_json",
    "event_waterkant_close": "admin_json",
    # One event with the names of who goes: every signed-in member of the club.
    "event": "member",
    "postal_address": "member_post",
    # The club feed: every signed-in member; a photo there only while its owner shares it (the world's member does).
    "club": "member",
    "club_sharing": "member_post",
    "club_brrr": "member_post",
    # The button is for admins; the service refuses anyone else (a member_post whose members are refused).
    "club_hide": "member_post",
    "club_photo": "member",
    "club_thumbnail": "member",
    # "Deel je badge": the image of a badge is its owner's alone (admins too get a 404; ROUTES).
    "club_badge_share": "member",
    # Badge art is public, like the catalogue's static art.
    "badge_art": "public",
    # Passkeys and the second factor: allauth's MFA views, each on the signed-in member's own factors only.
    "mfa_index": "allauth_member",
    "mfa_activate_totp": "reauth_member",
    "mfa_deactivate_totp": "reauth_member",
    "mfa_view_recovery_codes": "reauth_member",
    "mfa_generate_recovery_codes": "reauth_member",
    "mfa_download_recovery_codes": "reauth_member",
    "mfa_list_webauthn": "allauth_member",
    "mfa_add_webauthn": "reauth_member",
    "mfa_edit_webauthn": "reauth_member",
    "mfa_remove_webauthn": "reauth_member",
    # "Bevestig dat jij het bent": the password, or a passkey (without one: to the password page).
    "account_reauthenticate": "allauth_member",
    "mfa_reauthenticate_webauthn": "allauth_member",
    # The link to a new e-mail address: allauth's signed key in the URL is the credential.
    "account_confirm_email": "public",
    # The second step of a sign-in, and the passkey sign-in: only within a sign-in, else back to /auth.
    "mfa_authenticate": "allauth_stage",
    "mfa_login_webauthn": "allauth_stage",
    # Our redirect in front of Django admin's login form (which has no rate limit): sign in on /auth.
    "django-admin/login/": "redirect",
    # ...so Django admin's own login pattern is never reached.
    "admin:login": "shadowed",
}


# --- walking the URLconf --------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    route: str  # the full route, prefixes joined
    name: str  # namespaced name, "" when the pattern has none
    pattern: URLPattern

    @property
    def key(self) -> str:
        """The route name; unnamed patterns (and admin's unnamed ones) by their route."""
        if self.name and not self.name.endswith(":"):
            return self.name
        return self.route

    def __str__(self) -> str:
        return self.key


def _walk(patterns, prefix: str = "", namespace: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = namespace
            if entry.namespace:
                inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        else:
            name = f"{namespace}:{entry.name or ''}" if namespace else (entry.name or "")
            yield Pattern(route=prefix + str(entry.pattern), name=name, pattern=entry)


def all_patterns() -> list[Pattern]:
    return list(_walk(get_resolver().url_patterns))


def decision_for(pattern: Pattern) -> str | None:
    if pattern.key in ACCESS:
        return ACCESS[pattern.key]
    if pattern.route.startswith(DJANGO_ADMIN_PREFIX):
        return "django_admin"
    return None


PATTERNS = all_patterns()


def test_every_url_pattern_has_an_access_decision():
    missing = [p.route for p in PATTERNS if decision_for(p) is None]
    assert not missing, f"URL patterns without an access decision in ACCESS: {missing}"


def test_the_access_table_names_only_existing_patterns():
    keys = {p.key for p in PATTERNS}
    assert not set(ACCESS) - keys, f"stale entries in ACCESS: {set(ACCESS) - keys}"


def test_the_walk_sees_ours_allauths_and_django_admins_patterns():
    keys = {p.key for p in PATTERNS}
    assert {"landing", "dip_photo", "account_reset_password_from_key", "admin:index"} <= keys
    assert {"admin:accounts_user_changelist", "admin:challenges_dip_delete", "admin:app_list"} <= keys
    assert len(PATTERNS) >= 100


# --- concrete URLs ----------------------------------------------------------------------------------


def _admin_object(world: World, route: str):
    """The object a /django-admin/<app>/<model>/<id>/… URL is about."""
    from django.apps import apps

    app_label, model_name = route[len(DJANGO_ADMIN_PREFIX) :].split("/")[:2]
    model = apps.get_model(app_label, model_name)
    if model_name == "eventguest":
        _guest_cancel_link(world)  # the world has no guest of its own
    chosen = {
        User: world.member,
        UserRole: UserRole.objects.get(user=world.admin),
        Dip: world.member_photo_dip,
        UserChallenge: world.member_card,
        EventParticipant: world.participation,
        Invitation: world.invitation,
    }.get(model)
    return chosen or model.objects.order_by("pk").first()


# Regex patterns cannot be filled in generically: one sample URL each.
REGEX_URLS: dict[str, Callable[[World], str]] = {
    "account_reset_password_from_key": lambda w: f"/auth/wachtwoord-herstellen/{w.member.pk}-set-password",
    "admin:app_list": lambda w: "/django-admin/challenges/",
    "account_confirm_email": lambda w: "/account/e-mailadres-bevestigen/MQ:1tAbCd:niet-echt",
    "django-admin/(?P<url>.*)$": lambda w: "/django-admin/bestaat-niet/",
}

# Which object fills a URL parameter, per route (the default is by parameter name).
URL_ARGS: dict[str, Callable[[World], dict]] = {
    "adminpanel_event_guests_invite": lambda w: {"event_id": _past_guest(w).event_id},
    # The shore list takes taps on the day of the swim: a swim of today with the member on it.
    **{
        f"event_waterkant{name}": lambda w: {"event_id": _swim_today(w).pk}
        for name in ("", "_state", "_tap", "_member", "_close")
    },
    # The other member's place: a member may only ever give up their own.
    "event_leave": lambda w: {"event_id": w.participation.event_id},
    # A weekly series with a coming date (issue 34 §3); for Ik stop the other member comes every week.
    "event_series_join": lambda w: {"series_id": _series(w, other_comes=False)},
    "event_series_leave": lambda w: {"series_id": _series(w, other_comes=True)},
    # The member's device: only the member may remove it.
    "notice_device_delete": lambda w: {"subscription_id": PushSubscriptionFactory(user=w.member).pk},
    "calendar_feed": lambda w: {"token": CalendarFeed.objects.get(user=w.member).token},
    "event_guest_sign_up": lambda w: {"token": _guest_event(w).guest_token},
    "event_guest_cancel": lambda w: {"token": _guest_cancel_link(w)},
    "event_guest_confirm": lambda w: {"token": _guest_confirm_link(w)},
    "mail_unsubscribe": lambda w: {"token": unsubscribe_token(scope=UnsubscribeScope.EVENT_MAILS, user_id=w.member.pk)},
    # Only the latest dip of a card can be undone.
    "dip_undo": lambda w: {"dip_id": w.member_plain_dip.pk},
    "badge_art": lambda w: {"name": _stored_badge_art()},
    "account_export_file": lambda w: {"token": _member_export_link(w)},
    "club_badge_share": lambda w: {"award_id": w.user_badge.pk},
}


def _swim_today(world: World):
    now = timezone.localtime()
    event, created = Event.objects.get_or_create(
        title="Waterkantduik",
        defaults={"event_date": max(now - datetime.timedelta(hours=1), now.replace(hour=0, minute=0, second=0))},
    )
    if created:
        EventParticipant.objects.create(event=event, user=world.member)
    return event


def _guest_event(world: World):
    from apps.events.models import Event

    event, _ = Event.objects.get_or_create(
        title="Gastenduik",
        defaults={"event_date": timezone.now() + datetime.timedelta(days=5), "open_for_guests": True},
    )
    return event


def _past_guest(world: World):
    """A guest of an event that is over: the organiser may invite them to join the club."""
    from apps.events.models import EventGuest

    event, _ = Event.objects.get_or_create(
        title="Nieuwjaarsduik voorbij",
        defaults={"event_date": timezone.now() - datetime.timedelta(days=2), "open_for_guests": True},
    )
    guest, _ = EventGuest.objects.get_or_create(
        event=event,
        email="nieuwjaarsgast@example.nl",
        defaults={"name": "Nina Nieuwjaar", "safety_agreed_at": timezone.now()},
    )
    return guest


def _guest_cancel_link(world: World) -> str:
    from apps.events.models import EventGuest
    from apps.events.notices import guest_cancel_token

    guest, _ = EventGuest.objects.get_or_create(
        event=_guest_event(world),
        email="gast@example.nl",
        defaults={"name": "Gijs Gast", "safety_agreed_at": timezone.now()},
    )
    return guest_cancel_token(guest)


def _guest_confirm_link(world: World) -> str:
    """A sign-up through the guest link that waits for its confirmation (the place is held for it)."""
    from apps.events.models import EventGuest
    from apps.events.notices import guest_confirm_token

    guest, _ = EventGuest.objects.get_or_create(
        event=_guest_event(world),
        email="bevestig@example.nl",
        defaults={
            "name": "Bea Bevestig",
            "safety_agreed_at": timezone.now(),
            "confirm_by": timezone.now() + datetime.timedelta(minutes=30),
        },
    )
    return guest_confirm_token(guest)


def _member_export_link(world: World) -> str:
    """The member's ready export and its signed link (the token is made for the member alone)."""
    from django.core import signing

    from apps.logbook.models import MemberExport
    from apps.logbook.services import export_storage
    from apps.logbook.views import EXPORT_LINK_SALT

    name = export_storage().save(f"{world.member.pk}-matrix.zip", ContentFile(b"PK\x05\x06" + bytes(18)))
    MemberExport.objects.update_or_create(
        user=world.member, defaults={"status": "ready", "file_name": name, "ready_at": timezone.now()}
    )
    return signing.dumps({"u": world.member.pk, "f": name}, salt=EXPORT_LINK_SALT)


def _stored_badge_art() -> str:
    from apps.challenges.badge_art import badge_art_storage
    from tests.challenges.photo_samples import image_bytes

    storage, name = badge_art_storage(), "0123456789abcdef0123456789abcdef.png"
    if not storage.exists(name):
        storage.save(name, ContentFile(image_bytes(fmt="PNG")))
    return name


def _default_args(world: World) -> dict:
    return {
        "dip_id": world.member_photo_dip.pk,
        "event_id": world.event.pk,
        "invitation_id": world.invitation.pk,
        "user_id": world.other_member.pk,
        "content_type_id": 1,
        # No passkey in the world (one needs a real browser's credential): tests/e2e/test_passkeys.py
        # checks that a member's passkey is out of other members' reach.
        "pk": 999_999,
        "object_id": 1,
        "meetup_id": world.meetup.pk,
        "tag_id": world.buddy_tag.pk,
        "reply_id": world.reply.pk,
    }


def url_for(pattern: Pattern, world: World) -> str:
    if pattern.key in REGEX_URLS:
        return REGEX_URLS[pattern.key](world)
    args = _default_args(world)
    if pattern.key in URL_ARGS:
        args |= URL_ARGS[pattern.key](world)
    if "<path:object_id>" in pattern.route and not pattern.route.startswith(DJANGO_ADMIN_PREFIX + "r/"):
        args["object_id"] = _admin_object(world, pattern.route).pk
    url = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(args[m.group(1)]), pattern.route)
    assert "<" not in url and "(?" not in url, f"no sample URL for {pattern.route}: add it to REGEX_URLS"
    return url


def test_every_sample_url_reaches_its_own_pattern(world):
    for pattern in PATTERNS:
        url = url_for(pattern, world) if decision_for(pattern) != "shadowed" else "/" + pattern.route
        match = resolve(url.split("?")[0])
        if decision_for(pattern) == "shadowed":
            assert match.func is not pattern.pattern.callback, f"{pattern} is not shadowed any more: decide its access"
        else:
            assert match.func is pattern.pattern.callback, f"{url} does not reach {pattern}"


# --- what each route is asked and what it answers --------------------------------------------------


@dataclass(frozen=True)
class Expect:
    status: int
    location: str | None = None
    json_error: str | None = None
    message: str | None = None  # a Django message the response queues
    then: Callable[[World], object] | None = None  # a check of the data afterwards (raises or returns False)
    refused: bool = False  # a refusal in a normal answer (a redirect with a message): nothing may change


@dataclass(frozen=True)
class Route:
    method: str = "GET"
    data: Callable[[World], dict] | None = None
    json_body: bool = False
    # The answer per role where the decision's default does not say it all.
    expect: dict[str, Expect] = field(default_factory=dict)


def _login(url: str) -> str:
    return redirect_to_login(url, settings.LOGIN_URL).url


def _dips_on(card_attr: str, count: int):
    def check(world: World):
        assert Dip.objects.filter(user_challenge=getattr(world, card_attr)).count() == count

    return check


def _card_exists(exists: bool):
    def check(world: World):
        assert UserChallenge.objects.filter(pk=world.member_card.pk).exists() is exists

    return check


def _series(world: World, *, other_comes: bool) -> int:
    series = EventSeriesFactory()
    event = EventFactory(title="Zondagduik", series=series)
    if other_comes:
        EventSeriesMember.objects.create(series=series, user=world.other_member)
        EventParticipantFactory(event=event, user=world.other_member)
    return series.pk


def _series_member(role: str, *, member: bool):
    def check(world: World):
        assert EventSeriesMember.objects.filter(user=world.user(role)).exists() is member

    return check


def _joined(role: str):
    def check(world: World):
        assert EventParticipant.objects.filter(event=world.event, user=world.user(role)).exists()

    return check


def _others_place_kept(kept: bool):
    def check(world: World):
        assert EventParticipant.objects.filter(pk=world.participation.pk).exists() is kept

    return check


def _other_member_exists(exists: bool):
    def check(world: World):
        assert User.objects.filter(pk=world.other_member.pk).exists() is exists

    return check


def _card_started(role: str):
    def check(world: World):
        assert UserChallenge.objects.filter(user=world.user(role), is_active=True, challenge=world.challenge).exists()

    return check


def _badge_sent(world: World):
    assert UserBadge.objects.get(pk=world.user_badge.pk).physical_status == "verstuurd"


def _address_of(role: str):
    def check(world: World):
        assert PostalAddress.objects.get(user=world.user(role)).postcode == "1234 AB"
        if role != "other_member":  # the other member's own address is not theirs to change
            assert PostalAddress.objects.get(user=world.other_member).postcode == "2042 AB"

    return check


def _going(role: str, going: bool = True):
    def check(world: World):
        from apps.together.models import MeetupParticipant

        assert MeetupParticipant.objects.filter(meetup=world.meetup, user=world.user(role)).exists() is going

    return check


def _proposed(role: str):
    def check(world: World):
        from apps.together.models import Meetup

        assert Meetup.objects.filter(proposer=world.user(role), place="IJ-haven").exists()

    return check


def _meetup_cancelled(world: World):
    from apps.together.models import Meetup

    assert Meetup.objects.get(pk=world.meetup.pk).is_cancelled


def _replied(role: str, **under):
    def check(world: World):
        from apps.together.models import Reply

        target = {"meetup": world.meetup} if "meetup" in under else {"event": world.event}
        assert Reply.objects.filter(author=world.user(role), text="Ik ben 5 minuten later", **target).exists()

    return check


def _reply_gone(world: World):
    from apps.together.models import Reply

    assert not Reply.objects.filter(pk=world.reply.pk).exists()


def _tag_status(status: str):
    def check(world: World):
        from apps.challenges.models import DipBuddy

        assert DipBuddy.objects.get(pk=world.buddy_tag.pk).status == status

    return check


def _tagging_off(role: str):
    def check(world: World):
        assert User.objects.get(pk=world.user(role).pk).tagging_allowed is False

    return check


def _briefing_read(role: str):
    def check(world: World):
        assert User.objects.get(pk=world.user(role).pk).safety_briefing_read_on is not None

    return check


def _tomorrow_morning() -> str:
    import datetime

    moment = timezone.localtime() + datetime.timedelta(days=1)
    return moment.replace(hour=7, minute=30).strftime("%Y-%m-%dT%H:%M")


MESSAGE_NO_PERMISSION = "Je hebt geen toestemming om deze challenge te verwijderen."
MESSAGE_ONE_ACTIVE = "Je hebt al een actieve challenge. Rond die eerst af of stop ermee."

NO_SUCH_FACTOR = Expect(404)
NO_FACTOR_OF_MEMBERS = {role: NO_SUCH_FACTOR for role in ("member", "other_member", "bare_admin")}
NO_FACTOR_OF_ANYONE = NO_FACTOR_OF_MEMBERS | {"admin": NO_SUCH_FACTOR}
SIGNED_IN = ("member", "other_member", "admin", "bare_admin", "organiser")
WITHOUT_A_CARD = ("admin", "bare_admin", "organiser")  # the world's admins and organiser have no challenge

ROUTES: dict[str, Route] = {
    "meetup_propose": Route(
        method="POST",
        data=lambda w: {"starts_at": _tomorrow_morning(), "place": "IJ-haven", "note": ""},
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302, "/samen", message="Je plonsafspraak staat erop. Wie gaat er mee?", then=_proposed(role)
                )
                for role in SIGNED_IN
            },
        },
    ),
    "meetup_join": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            # The proposer goes already: joining again changes nothing.
            **{role: Expect(302, "/samen", message="Je gaat mee!", then=_going(role)) for role in SIGNED_IN},
        },
    ),
    "meetup_leave": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            # Not going: nothing to give up; the proposer cancels instead, and stays on the list.
            **{role: Expect(302, "/samen", message="Je gaat niet meer mee.", refused=True) for role in SIGNED_IN},
            "other_member": Expect(
                302,
                "/samen",
                message="Je hebt deze afspraak zelf voorgesteld. Gaat hij niet door? Annuleer hem dan.",
                refused=True,
            ),
        },
    ),
    "meetup_cancel": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302, "/samen", message="Alleen wie de afspraak voorstelde, kan hem annuleren.", refused=True
                )
                for role in SIGNED_IN
            },
            "other_member": Expect(
                302,
                "/samen",
                message="De plonsafspraak is geannuleerd. Wie meeging, krijgt bericht.",
                then=_meetup_cancelled,
            ),
        },
    ),
    "meetup_reply": Route(
        method="POST",
        data=lambda w: {"text": "Ik ben 5 minuten later"},
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(302, message="Je reactie staat erbij.", then=_replied(role, meetup=True))
                for role in SIGNED_IN
            },
        },
    ),
    "event_reply": Route(
        method="POST",
        data=lambda w: {"text": "Ik ben 5 minuten later"},
        expect={
            "anonymous": Expect(302, _login("/events"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{role: Expect(302, message="Je reactie staat erbij.", then=_replied(role)) for role in SIGNED_IN},
        },
    ),
    "reply_delete": Route(
        method="POST",
        data=lambda w: {"page": f"meetup-{w.meetup.pk}"},
        expect={
            "anonymous": Expect(302, _login("/samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302, message="Alleen wie de reactie schreef, of een admin, kan hem verwijderen.", refused=True
                )
                for role in ("member", "bare_admin", "organiser")
            },
            **{
                role: Expect(302, message="De reactie is verwijderd.", then=_reply_gone)
                for role in ("other_member", "admin")
            },
        },
    ),
    "buddy_accept": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#buddies"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            "member": Expect(
                302,
                "/dashboard#buddies",
                message="De plons staat op je kaart. Fijn dat jullie samen gingen!",
                then=lambda w: (_tag_status("accepted")(w), _dips_on("member_card", 3)(w)),
            ),
            # Someone else's request is answered like a missing one.
            **{
                role: Expect(302, "/dashboard#buddies", message="Dit verzoek bestaat niet (meer).", refused=True)
                for role in ("other_member", "admin", "bare_admin")
            },
        },
    ),
    "buddy_decline": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#buddies"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            "member": Expect(
                302,
                "/dashboard#buddies",
                message="Genoteerd: deze plons komt niet op je kaart.",
                then=_tag_status("declined"),
            ),
            **{
                role: Expect(302, "/dashboard#buddies", message="Dit verzoek bestaat niet (meer).", refused=True)
                for role in ("other_member", "admin", "bare_admin")
            },
        },
    ),
    "buddy_candidates": Route(method="GET"),
    "tagging_setting": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/account#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302,
                    "/account#samen",
                    message="Niemand kan je nog taggen bij een plons.",
                    then=_tagging_off(role),
                )
                for role in SIGNED_IN
            },
        },
    ),
    "briefing_read": Route(
        method="POST",
        expect={role: Expect(200, then=_briefing_read(role)) for role in SIGNED_IN},
    ),
    # Nobody in the world has a passkey: the passkey page sends everyone to the password page.
    "mfa_reauthenticate_webauthn": Route(expect={role: Expect(302, "/auth/opnieuw/") for role in SIGNED_IN}),
    # The admin has an authenticator app (the role needs a factor), the members have none; activating one,
    # and editing or removing a passkey, asks for the password first (the reauth_member default).
    "mfa_deactivate_totp": Route(expect=NO_FACTOR_OF_MEMBERS),
    # Nobody in the world has recovery codes (with codes: the password first, test_reauthentication.py).
    "mfa_view_recovery_codes": Route(expect=NO_FACTOR_OF_ANYONE),
    "mfa_download_recovery_codes": Route(expect=NO_FACTOR_OF_ANYONE),
    "logout": Route(method="POST"),
    "account_logout": Route(method="POST"),
    "challenge": Route(expect={role: Expect(302, "/dashboard") for role in WITHOUT_A_CARD}),
    "challenge_start": Route(
        method="POST",
        data=lambda w: {"challenge_id": w.challenge.pk},
        expect={
            # An expired session: signing in again lands on the page of the form, never on this POST URL.
            "anonymous": Expect(302, _login("/dashboard"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            # Both members already have an unfinished card: refused, with the reason.
            "member": Expect(302, "/dashboard", message=MESSAGE_ONE_ACTIVE, refused=True),
            "other_member": Expect(302, "/dashboard", message=MESSAGE_ONE_ACTIVE, refused=True),
            **{
                role: Expect(302, "/challenge", message="Challenge gestart!", then=_card_started(role))
                for role in WITHOUT_A_CARD
            },
        },
    ),
    "dip_register": Route(
        method="POST",
        expect={
            "member": Expect(201, then=_dips_on("member_card", 3)),
            # On their own card, never on the member's.
            "other_member": Expect(201, then=lambda w: (_dips_on("other_card", 2)(w), _dips_on("member_card", 2)(w))),
            **{role: Expect(409, json_error="Je hebt geen actieve challenge.") for role in WITHOUT_A_CARD},
        },
    ),
    "dip_update": Route(
        method="POST",
        data=lambda w: {"spot": "Pier"},
        expect={
            "member": Expect(200, then=lambda w: Dip.objects.get(pk=w.member_photo_dip.pk).spot == "Pier"),
            # Someone else's dip is answered like a missing one, for admins too: it is the member's own log.
            **{
                role: Expect(404, json_error="Deze plons bestaat niet (meer).")
                for role in ("other_member", "admin", "bare_admin")
            },
        },
    ),
    "dip_undo": Route(
        method="POST",
        expect={
            "member": Expect(200, then=_dips_on("member_card", 1)),
            **{
                role: Expect(404, json_error="Deze plons bestaat niet (meer).")
                for role in ("other_member", "admin", "bare_admin")
            },
        },
    ),
    "challenge_stop": Route(
        method="POST",
        data=lambda w: {"user_challenge_id": w.member_card.pk},
        expect={
            # An expired session: the spec's message, and back to the stamp card (not this POST URL) after.
            "anonymous": Expect(
                302, "/auth?next=/challenge", message="Je sessie is verlopen. Log opnieuw in.", refused=True
            ),
            "member": Expect(302, "/dashboard", then=_card_exists(False)),
            # The member's card id in someone else's form: refused, the card stays.
            "other_member": Expect(302, "/dashboard", message=MESSAGE_NO_PERMISSION, refused=True),
            **{role: Expect(302, "/dashboard", message=MESSAGE_NO_PERMISSION, refused=True) for role in WITHOUT_A_CARD},
        },
    ),
    "event_join": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(302, "/dashboard#samen", message="Je bent aangemeld voor dit event!", then=_joined(role))
                for role in SIGNED_IN
            },
        },
    ),
    "event_leave": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            # Leaving an event you are not on is harmless; someone else's place is never touched.
            "member": Expect(302, "/dashboard#samen", refused=True),
            "other_member": Expect(302, "/dashboard#samen", then=_others_place_kept(False)),
            "admin": Expect(302, "/dashboard#samen", refused=True),
            "bare_admin": Expect(302, "/dashboard#samen", refused=True),
        },
    ),
    "event_series_join": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302,
                    "/dashboard#samen",
                    message=SeriesJoin(places=1).message(),
                    then=_series_member(role, member=True),
                )
                for role in SIGNED_IN
            },
        },
    ),
    # Only the other member comes every week: only they stop; nobody else's membership is touched.
    "event_series_leave": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(302, "/dashboard#samen", message=MESSAGE_SERIES_NOT_MEMBER, refused=True)
                for role in SIGNED_IN
                if role != "other_member"
            },
            "other_member": Expect(
                302,
                "/dashboard#samen",
                message=MESSAGE_SERIES_LEFT,
                then=_series_member("other_member", member=False),
            ),
        },
    ),
    # Nobody in the world has a waitlist offer: Ik kom is refused with the reason, Ik kan niet changes nothing.
    "event_offer_accept": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{role: Expect(302, "/dashboard#samen", message=MESSAGE_OFFER_NONE, refused=True) for role in SIGNED_IN},
        },
    ),
    "event_offer_decline": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard#samen"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{role: Expect(302, "/dashboard#samen", message=MESSAGE_OFFER_NONE, refused=True) for role in SIGNED_IN},
        },
    ),
    # A new e-mail address: not on a session alone; the password (or a passkey) first, nothing changes yet.
    "account_profile": Route(
        method="POST",
        data=lambda w: {"profiel-full_name": "Nieuwe Naam", "profiel-email": "nieuw-adres@example.nl"},
        expect={role: Expect(302, "/auth/opnieuw/?next=%2Faccount%2Fprofiel", refused=True) for role in SIGNED_IN},
    ),
    # A wrong current password: refused for everyone, nothing changes.
    "account_password": Route(
        method="POST",
        data=lambda w: {"wachtwoord-current_password": "fout", "wachtwoord-new_password": "nog-kouder-water"},
        expect={role: Expect(400, refused=True) for role in SIGNED_IN},
    ),
    "account_delete": Route(
        method="POST",
        data=lambda w: {"verwijderen-password": DEFAULT_PASSWORD},
        expect={
            "member": Expect(302, "/", then=lambda w: not User.objects.filter(pk=w.member.pk).exists()),
            # Only ever the own account.
            "other_member": Expect(
                302,
                "/",
                then=lambda w: (
                    User.objects.filter(pk=w.member.pk).exists()
                    and not User.objects.filter(pk=w.other_member.pk).exists()
                ),
            ),
            # The bare admin holds the role too, so the club keeps an admin either way (the last admin's
            # refusal: tests/accounts/test_account_profile.py and test_services.py).
            **{
                role: Expect(302, "/", then=lambda w, role=role: not User.objects.filter(pk=w.user(role).pk).exists())
                for role in ("admin", "bare_admin", "organiser")
            },
        },
    ),
    "adminpanel_invitation_create": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"email": "nieuwkomer@example.nl"},
        expect={
            "admin": Expect(
                201, then=lambda w: Invitation.objects.get(email="nieuwkomer@example.nl", invited_by=w.admin)
            )
        },
    ),
    "adminpanel_invitation_bulk": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"text": "a@example.nl, b@example.nl"},
        expect={"admin": Expect(201, then=lambda w: Invitation.objects.get(email="b@example.nl"))},
    ),
    "adminpanel_invitation_delete": Route(
        method="POST",
        expect={"admin": Expect(200, then=lambda w: not Invitation.objects.filter(pk=w.invitation.pk).exists())},
    ),
    "calendar_renew": Route(
        method="POST",
        expect={
            role: Expect(
                302,
                "/dashboard#samen",
                # "The old link stops working" only for whoever had one (the world's member has).
                message=MESSAGE_CALENDAR_RENEWED if role == "member" else MESSAGE_CALENDAR_CREATED,
                then=lambda w, role=role: CalendarFeed.objects.get(user=w.user(role)),
            )
            for role in SIGNED_IN
        },
    ),
    "mail_preferences": Route(
        method="POST",
        data=lambda w: {"dip_nudge": "on"},
        expect={
            role: Expect(
                302,
                "/account#herinneringen",
                then=lambda w, role=role: MailPreference.objects.get(user=w.user(role), dip_nudge=True),
            )
            for role in SIGNED_IN
        },
    ),
    "adminpanel_invitation_resend": Route(
        method="POST",
        expect={"admin": Expect(200, then=lambda w: Mail.objects.get(invitation=w.invitation, status="queued"))},
    ),
    "adminpanel_user_delete": Route(
        method="POST",
        expect={"admin": Expect(200, then=_other_member_exists(False))},
    ),
    "adminpanel_user_organiser": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"organiser": True},
        expect={"admin": Expect(200, then=lambda w: User.objects.get(pk=w.other_member.pk).has_organiser_role)},
    ),
    "notice_subscribe": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"subscription": {"endpoint": "https://push.example.com/x", "keys": {}}},
        # The matrix's site has no VAPID keys: everyone signed in hears that push is off (tests/notifications).
        expect={role: Expect(409, json_error=MESSAGE_PUSH_OFF, refused=True) for role in SIGNED_IN},
    ),
    "notice_device_delete": Route(
        method="POST",
        expect={
            role: Expect(
                302,
                "/account#meldingen",
                then=lambda w, role=role: PushSubscription.objects.filter(user=w.member).exists() == (role != "member"),
            )
            for role in SIGNED_IN
        },
    ),
    "notice_preferences": Route(
        method="POST",
        data=lambda w: {"kind_club_message": "mail"},
        expect={
            role: Expect(
                302,
                "/account#meldingen",
                then=lambda w, role=role: NoticePreference.objects.get(user=w.user(role), channel="mail"),
            )
            for role in SIGNED_IN
        },
    ),
    # Dated club challenges: each member joins and leaves for themselves only.
    "club_challenge_join": Route(
        method="POST",
        data=lambda w: {"club_challenge_id": w.club_challenge.pk},
        expect={
            "anonymous": Expect(302, _login("/dashboard"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302,
                    "/dashboard#clubchallenges",
                    message="Je doet mee met Dip a Day December!",
                    then=lambda w, role=role: ClubChallengeEntry.objects.get(
                        user=w.user(role), club_challenge=w.club_challenge
                    ),
                )
                for role in SIGNED_IN
            },
        },
    ),
    # Nobody in the world takes part: leaving changes nothing and says it is done (idempotent).
    "club_challenge_leave": Route(
        method="POST",
        data=lambda w: {"club_challenge_id": w.club_challenge.pk},
        expect={
            "anonymous": Expect(302, _login("/dashboard"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(302, "/dashboard#clubchallenges", message="Je doet niet meer mee met deze clubchallenge.")
                for role in SIGNED_IN
            },
        },
    ),
    # The dashboard's "Plons registreren": on the member's own card (the same service as the stamp card's).
    "club_dip_register": Route(
        method="POST",
        expect={
            "anonymous": Expect(302, _login("/dashboard"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            "member": Expect(
                302, "/dashboard#clubchallenges", message="Plons toegevoegd!", then=_dips_on("member_card", 3)
            ),
            "other_member": Expect(
                302,
                "/dashboard#clubchallenges",
                then=lambda w: (_dips_on("other_card", 2)(w), _dips_on("member_card", 2)(w)),
            ),
            **{
                role: Expect(302, "/dashboard#clubchallenges", message="Je hebt geen actieve challenge.", refused=True)
                for role in WITHOUT_A_CARD
            },
        },
    ),
    # The dashboard's undo: the member's own latest dip only; anyone else's is answered as a missing one.
    "club_dip_undo": Route(
        method="POST",
        data=lambda w: {"dip_id": w.member_plain_dip.pk},
        expect={
            "anonymous": Expect(302, _login("/dashboard"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            "member": Expect(
                302, "/dashboard#clubchallenges", message="Plons ongedaan gemaakt.", then=_dips_on("member_card", 1)
            ),
            **{
                role: Expect(302, "/dashboard#clubchallenges", message="Deze plons bestaat niet (meer).", refused=True)
                for role in ("other_member", "admin", "bare_admin")
            },
        },
    ),
    "adminpanel_club_challenge_delete": Route(
        method="POST",
        data=lambda w: {"club_challenge_id": w.club_challenge.pk},
        expect={
            "admin": Expect(
                302,
                "/admin/clubchallenges",
                message="Clubchallenge verwijderd.",
                then=lambda w: not ClubChallenge.objects.filter(pk=w.club_challenge.pk).exists(),
            )
        },
    ),
    "adminpanel_physical_mark": Route(
        method="POST",
        data=lambda w: {"award": [w.user_badge.pk], "physical_status": "verstuurd"},
        expect={"admin": Expect(302, "/admin/fysieke-badges/", then=_badge_sent)},
    ),
    # Afgelasten with a reason: the admin's event is afgelast; everyone else changes nothing.
    "adminpanel_event_cancel": Route(
        method="POST",
        data=lambda w: {"reason": "Storm op zee"},
        expect={"admin": Expect(302, then=lambda w: Event.objects.get(pk=w.event.pk, cancel_reason="Storm op zee"))},
    ),
    # After the event the admin invites a ticked guest to join the club (an invitation with its mail).
    "adminpanel_event_guests_invite": Route(
        method="POST",
        data=lambda w: {"gast": [_past_guest(w).pk]},
        expect={
            "admin": Expect(
                302,
                message=MESSAGE_GUESTS_INVITED.format(count=1),
                then=lambda w: Invitation.objects.filter(email="nieuwjaarsgast@example.nl").exists(),
            )
        },
    ),
    # The world's event has not started: attendance is refused for the admin too, and nothing is stamped.
    "adminpanel_event_attendance": Route(
        method="POST",
        data=lambda w: {"aanwezig": [w.member.pk]},
        expect={
            "admin": Expect(302, refused=True, then=lambda w: not Attendance.objects.filter(user=w.member).exists())
        },
    ),
    # The organiser's phone at the water: a tap, a member added by name, "Iedereen is eruit"; each answers the list.
    "event_waterkant_tap": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"swimmer": f"lid-{w.member.pk}", "kind": "in", "tapped_at": timezone.now().isoformat()},
        expect={
            "admin": Expect(
                200, then=lambda w: ShoreSwimmer.objects.get(user=w.member, went_in_at__isnull=False) is not None
            )
        },
    ),
    "event_waterkant_member": Route(
        method="POST",
        json_body=True,
        data=lambda w: {"name": w.other_member.email},
        expect={"admin": Expect(200, then=lambda w: ShoreSwimmer.objects.get(user=w.other_member) is not None)},
    ),
    "event_waterkant_close": Route(
        method="POST",
        json_body=True,
        expect={"admin": Expect(200, then=lambda w: ShoreList.objects.get(closed_at__isnull=False) is not None)},
    ),
    "account_export": Route(
        method="POST",
        expect={
            role: Expect(
                302,
                "/account#export",
                message=MESSAGE_EXPORT_REQUESTED,
                then=lambda w, role=role: MemberExport.objects.get(user=w.user(role), status="preparing"),
            )
            for role in ROLES
            if role != "anonymous"
        },
    ),
    # No one in the world has an export yet: back to /account, where it can be asked for.
    "account_export_download": Route(
        expect={role: Expect(302, "/account#export", refused=True) for role in ROLES if role != "anonymous"}
    ),
    # The link is the member's: anyone else gets a 404, as for a link that does not exist.
    "account_export_file": Route(expect={role: Expect(404) for role in ROLES if role not in ("anonymous", "member")}),
    "club_badge_share": Route(expect={role: Expect(404) for role in ("other_member", "admin", "bare_admin")}),
    "club_sharing": Route(
        method="POST",
        data=lambda w: {"share_dips": "nee"},
        expect={
            "anonymous": Expect(302, _login("/club"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302,
                    "/club",
                    message=MESSAGE_SHARING_OFF,
                    then=lambda w, role=role: (
                        ClubSharing.objects.get(user=w.user(role), share_dips=False)
                        and (role == "member" or ClubSharing.objects.get(user=w.member).share_dips)
                    ),
                )
                for role in SIGNED_IN
            },
        },
    ),
    "club_brrr": Route(
        method="POST",
        data=lambda w: {"item": f"dip:{w.member_photo_dip.pk}", "given": "1"},
        expect={
            "anonymous": Expect(302, _login("/club"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            **{
                role: Expect(
                    302,  # back to the item on /club (its id is the world's)
                    then=lambda w, role=role: Brrr.objects.get(user=w.user(role), owner=w.member),
                )
                for role in SIGNED_IN
                if role != "member"
            },
            # The dip is the member's own: a Brrr! goes to other members' dips and badges only.
            "member": Expect(302, message=MESSAGE_BRRR_NOT_HERE, refused=True),
        },
    ),
    "club_hide": Route(
        method="POST",
        data=lambda w: {"item": f"dip:{w.member_photo_dip.pk}"},
        expect={
            "anonymous": Expect(302, _login("/club"), message=MESSAGE_SESSION_EXPIRED, refused=True),
            "admin": Expect(
                302, "/club", message=MESSAGE_HIDDEN, then=lambda w: HiddenItem.objects.get(hidden_by=w.admin)
            ),
            **{
                role: Expect(302, "/club", message=MESSAGE_NOT_ADMIN, refused=True)
                for role in ("member", "other_member", "bare_admin")
            },
        },
    ),
    "postal_address": Route(
        method="POST",
        data=lambda w: {"street": "Strandweg 1", "postcode": "1234 ab", "city": "Zandvoort"},
        expect={
            role: Expect(302, "/account#postadres", message="Je postadres is opgeslagen.", then=_address_of(role))
            for role in SIGNED_IN
        },
    ),
}

# Django admin: what the admin role gets, per kind of page.
DJANGO_ADMIN_FOR_ADMIN = [
    # Dips, cards and earned badges are made only by the stamp card's services: no add page, and an earned
    # badge is not removed by hand (issue 10).
    (r"^admin:challenges_(dip|userchallenge|userbadge|dipbuddy)_add$", Expect(403)),
    (r"^admin:mfa_authenticator_add$", Expect(403)),  # a factor is made by its member on /account
    # A guest signs up and cancels through their own links; delete_old_guests removes them 30 days after the event.
    (r"^admin:events_eventguest_(add|delete)$", Expect(403)),
    (r"^admin:challenges_userbadge_delete$", Expect(403)),
    # Series and attendance are made and taken back on /admin/events (their services): only seen here.
    (r"^admin:(events_eventseries|attendance_attendance)_(add|delete)$", Expect(403)),
    # "Ik kom elke week" and a skipped date are the member's own (apps.events.services.series): only seen here.
    (r"^admin:events_eventseries(member|skip)_(add|delete)$", Expect(403)),
    (r"^admin:challenges_(userbadge|dipbuddy)_delete$", Expect(403)),
    (r"^admin:.*_changelist$", Expect(200)),
    (r"^admin:.*_add$", Expect(200)),
    (r"^admin:.*_change$", Expect(200)),
    (r"^admin:.*_history$", Expect(200)),
    (r"^admin:.*_delete$", Expect(200)),  # the confirmation page; a GET deletes nothing
    (r"^admin:(index|app_list|password_change|password_change_done|jsi18n)$", Expect(200)),
    (r"^admin:logout$", Expect(405)),  # sign-out is a POST
    (r"^admin:autocomplete$", Expect(403)),  # needs the field it completes
    (r"^admin:view_on_site$", Expect(404)),  # no model of ours has a public page
    (r"/<path:object_id>/$", Expect(302)),  # old-style object URL: redirects to …/change/
    (r"\(\?P<url>\.\*\)\$$", Expect(404)),  # anything else under /django-admin/
]


def _django_admin_expect_for_admin(pattern: Pattern, url: str) -> Expect:
    for regex, expect in DJANGO_ADMIN_FOR_ADMIN:
        if re.search(regex, pattern.name) or re.search(regex, pattern.route):
            if expect.status == 302:
                return Expect(302, url + "change/")
            return expect
    raise AssertionError(f"no expectation for the admin role on {pattern}")


FACTOR_SETUP = "/account#tweede-factor"


def _is_admin_url(url: str) -> bool:
    return url == "/admin" or url.startswith(("/admin/", "/" + DJANGO_ADMIN_PREFIX))


def _organiser_expect(pattern: Pattern, url: str, route: Route) -> Expect:
    """The organiser: an admin on the pages that declare the organiser; elsewhere under /admin, in the Django
    admin and at others' photos refused like a member; everywhere else a member without a card, with a
    second factor of their own (so allauth's factor pages answer as they do for the admin)."""
    decision = decision_for(pattern)
    if getattr(pattern.pattern.callback, "staff_role", None) is StaffRole.ORGANISER:
        return expected(pattern, "admin", url, route)
    if _is_admin_url(url) or decision in ("admin", "admin_json", "django_admin", "owner_or_admin"):
        if decision == "owner_or_admin":
            return Expect(404)
        return expected(pattern, "other_member", url, Route())
    if pattern.key.startswith("mfa_"):
        return expected(pattern, "admin", url, route)
    return expected(pattern, "bare_admin", url, route)


def expected(pattern: Pattern, role: str, url: str, route: Route) -> Expect:
    decision = decision_for(pattern)
    if role in route.expect:
        return route.expect[role]
    if role == "organiser":
        return _organiser_expect(pattern, url, route)
    if role == "bare_admin" and _is_admin_url(url):
        # Refused as a member is; the refusal shows the way to a second factor instead of the dashboard.
        if url.startswith("/admin/api/"):
            return Expect(403, json_error=MESSAGE_SECOND_FACTOR_REQUIRED)
        return Expect(302, FACTOR_SETUP, message=MESSAGE_SECOND_FACTOR_REQUIRED, refused=True)
    anonymous = role == "anonymous"
    admin = role == "admin"
    if decision == "public":
        return Expect(200)
    if decision == "token":
        return Expect(403) if settings.STATUS_TOKEN else Expect(404)
    if decision == "guest":
        return Expect(200) if anonymous else Expect(302, "/dashboard")
    if decision == "redirect":
        target = {
            "account_login": "/auth",
            "account_signup": "/auth?tab=registreren",
            "favicon": "/static/favicon.ico",
            "events": "/samen",
        }.get(pattern.key, "/auth")
        return Expect(302, target)
    if decision == "allauth_member":
        # Where to exactly: test_allauth_pages_send_visitors_to_sign_in_and_back.
        return Expect(302) if anonymous else Expect(200)
    if decision == "reauth_member":
        return Expect(302) if anonymous else Expect(302, "/auth/opnieuw/?next=" + quote(url, safe=""))
    if decision == "allauth_stage":
        return Expect(302, "/auth/login/") if anonymous else Expect(302, "/dashboard")
    if decision == "post_any":
        return Expect(302, settings.LOGOUT_REDIRECT_URL)
    if decision in ("member", "member_post"):
        return Expect(302, _login(url)) if anonymous else Expect(200)
    if decision == "member_json":
        return Expect(401, json_error=MESSAGE_SESSION_EXPIRED) if anonymous else Expect(200)
    if decision == "owner_or_admin":
        if anonymous:
            return Expect(302, _login(url))
        return Expect(404) if role in ("other_member", "bare_admin") else Expect(200)
    if decision == "admin":
        if anonymous:
            return Expect(302, _login(url))
        return Expect(200) if admin else Expect(302, "/dashboard", message=MESSAGE_NO_ADMIN, refused=True)
    if decision == "admin_json":
        if anonymous:
            return Expect(401, json_error=MESSAGE_ADMIN_SESSION_EXPIRED)
        return Expect(200) if admin else Expect(403, json_error=MESSAGE_NO_ADMIN)
    if decision == "django_admin":
        if admin:
            return _django_admin_expect_for_admin(pattern, url)
        if pattern.name == "admin:logout":
            return Expect(302, "/django-admin/")  # Django sends a non-admin on its logout page to the index
        return Expect(302, "/django-admin/login/?next=" + quote(url))
    raise AssertionError(f"unknown decision {decision!r} for {pattern}")


# Decisions of endpoints that act on POST: the matrix needs to know what to send.
POST_DECISIONS = {"post_any", "member_post", "member_json"}


def refused(expect: Expect, decision: str, role: str) -> bool:
    """Whether this answer is a refusal (after which nothing may have changed)."""
    if role == "anonymous" and decision not in ("public", "guest", "redirect", "post_any", "allauth_stage"):
        return True
    return expect.refused or expect.status in (401, 403, 404, 405)


def send(client, method: str, url: str, route: Route, world: World):
    data = route.data(world) if route.data else {}
    if method == "GET":
        return client.get(url, data)
    if route.json_body:
        return client.post(url, json.dumps(data), content_type="application/json")
    return client.post(url, data)


CASES = [
    pytest.param(pattern, role, id=f"{pattern.key}-{role}")
    for pattern in PATTERNS
    if decision_for(pattern) not in (None, "shadowed")
    for role in ROLES
]


@pytest.mark.parametrize(("pattern", "role"), CASES)
def test_matrix(world, pattern, role):
    decision = decision_for(pattern)
    if decision in POST_DECISIONS:
        assert pattern.key in ROUTES, f"{pattern} takes POSTs: say in ROUTES what to send and what each role gets"
    route = ROUTES.get(pattern.key, Route())
    url = url_for(pattern, world)
    client = world.client(role)
    want = expected(pattern, role, url, route)
    before = database_state()

    response = send(client, route.method, url, route, world)

    assert response.status_code != 500
    assert response.status_code == want.status, (url, role, response.status_code, response.get("Location"))
    if want.location is not None:
        assert response["Location"] == want.location
    if want.json_error is not None:
        assert response["Content-Type"] == "application/json"
        assert json.loads(response.content)["error"] == want.json_error
    if want.message is not None:
        assert want.message in [str(m) for m in get_messages(response.wsgi_request)]
    if route.method == "GET" or refused(want, decision, role):
        assert database_state() == before, f"{role} {route.method} {url} changed data"
    if want.then is not None:
        assert want.then(world) is not False


# --- follow-ups the matrix cannot say in one request ------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_a_wrong_guest_token_is_a_404_for_everyone(world, role):
    client = world.client(role)
    _guest_cancel_link(world)
    _guest_confirm_link(world)
    before = database_state()
    for url in (
        "/events/gast/" + "x" * 32,
        "/events/gast/afmelden/" + "a" * 40 + ":" + "b" * 20,
        "/events/gast/bevestigen/" + "a" * 40 + ":" + "b" * 20,
    ):
        assert client.get(url).status_code == 404
        assert client.post(url, {"name": "Gijs", "email": "gijs@example.nl", "safety_agreed": "on"}).status_code == 404
    assert database_state() == before


@pytest.mark.parametrize(
    "pattern", [p for p in PATTERNS if decision_for(p) in ("allauth_member", "reauth_member")], ids=str
)
def test_allauth_pages_send_visitors_to_sign_in_and_back(world, pattern):
    """allauth's views go through its /auth/login/ (to /auth, keeping `next`); Django's straight to /auth."""
    url = url_for(pattern, world)
    location = world.client("anonymous").get(url)["Location"]
    assert location in (_login(url), "/auth/login/?next=" + quote(url, safe=""))


@pytest.mark.parametrize("role", ["anonymous", "member", "other_member"])
def test_the_django_admin_sends_everyone_but_admins_through_auth(world, role):
    """Django admin's login is /auth: anonymous visitors land on the sign-in form, members on their dashboard."""
    client = world.client(role)
    response = client.get("/django-admin/accounts/user/", follow=True)
    hops = [url for url, _status in response.redirect_chain]
    assert hops[0] == "/django-admin/login/?next=/django-admin/accounts/user/"
    first_stop = urlsplit(hops[1])
    assert (first_stop.path, parse_qs(first_stop.query)) == ("/auth", {"next": ["/django-admin/accounts/user/"]})
    if role == "anonymous":
        assert response.status_code == 200 and response.request["PATH_INFO"] == "/auth"
        assert 'name="next" value="/django-admin/accounts/user/"' in response.content.decode()
    else:
        assert hops[-1] == "/dashboard"
        assert "Gegevens beheren" not in response.content.decode()


def test_members_on_the_admin_screen_see_the_dutch_refusal(world):
    response = world.client("member").get("/admin", follow=True)
    assert response.redirect_chain == [("/dashboard", 302)]
    assert "Je hebt geen admin rechten" in response.content.decode()


@pytest.mark.parametrize("view", ["dip_photo", "dip_thumbnail"])
@pytest.mark.parametrize("role", ["member", "other_member"])
def test_no_member_sees_another_members_photo_by_any_id(world, view, role):
    """The other member's photo, a dip without a photo and ids that do not exist: one and the same 404."""
    client = world.client(role)
    own = world.member_photo_dip if role == "member" else world.other_photo_dip
    theirs = world.other_photo_dip if role == "member" else world.member_photo_dip
    suffix = "/klein" if view == "dip_thumbnail" else ""
    assert client.get(f"/foto/{own.pk}{suffix}").status_code == 200
    for dip_id in (theirs.pk, world.member_plain_dip.pk, 0, 999_999, 2**63 - 1, 2**63, 10**30):
        response = client.get(f"/foto/{dip_id}{suffix}")
        assert response.status_code == 404, dip_id
        assert b"Oops! Page not found" in response.content


def test_photos_are_private_in_the_http_cache_too(world):
    response = world.client("member").get(f"/foto/{world.member_photo_dip.pk}")
    assert "private" in response["Cache-Control"]
    assert response["Content-Type"] == "image/jpeg"


def test_an_admin_sees_every_members_photo(world):
    client = world.client("admin")
    for dip in (world.member_photo_dip, world.other_photo_dip):
        assert client.get(f"/foto/{dip.pk}").status_code == 200
        assert client.get(f"/foto/{dip.pk}/klein").status_code == 200


def test_a_member_cannot_stop_another_members_challenge(world):
    client = world.client("other_member")
    before = database_state()
    client.post("/challenge/stoppen", {"user_challenge_id": world.member_card.pk})
    assert database_state() == before


# Every POST a member could aim at the admin side, with data that would do harm if it were accepted.
ADMIN_POSTS: list[tuple[str, Callable[[World], dict]]] = [
    ("/admin/api/uitnodigingen/nieuw", lambda w: {"email": "indringer@example.nl"}),
    ("/admin/api/uitnodigingen/bulk", lambda w: {"text": "x@example.nl y@example.nl"}),
    ("/admin/api/uitnodigingen/{invitation}/verwijderen", lambda w: {}),
    ("/admin/api/gebruikers/{other}/verwijderen", lambda w: {}),
    ("/admin/api/gebruikers/{admin}/verwijderen", lambda w: {}),
    ("/django-admin/accounts/userrole/add/", lambda w: {"user": w.member.pk, "role": "admin"}),
    (
        "/django-admin/accounts/user/{member}/change/",
        lambda w: {
            "email": w.member.email,
            "full_name": "Gehackt",
            "is_active": "on",
            "roles-TOTAL_FORMS": "1",
            "roles-INITIAL_FORMS": "0",
            "roles-0-role": "admin",
        },
    ),
    ("/django-admin/accounts/user/{other}/delete/", lambda w: {"post": "yes"}),
    ("/django-admin/challenges/dip/{other_dip}/delete/", lambda w: {"post": "yes"}),
    (
        "/django-admin/invitations/invitation/add/",
        lambda w: {
            "code": "HACKED01",
            "expires_at_0": "2030-01-01",
            "expires_at_1": "12:00",
            "created_at_0": "2026-01-01",
            "created_at_1": "12:00",
        },
    ),
    ("/django-admin/events/event/{event}/delete/", lambda w: {"post": "yes"}),
    ("/django-admin/auth/group/{group}/delete/", lambda w: {"post": "yes"}),
    (
        "/django-admin/challenges/userbadge/",
        lambda w: {"action": "delete_selected", "_selected_action": [w.user_badge.pk], "post": "yes"},
    ),
]


@pytest.mark.parametrize("role", ["anonymous", "member", "other_member", "bare_admin", "organiser"])
@pytest.mark.parametrize(("path", "data"), ADMIN_POSTS, ids=[p for p, _ in ADMIN_POSTS])
def test_posts_to_admin_endpoints_by_non_admins_change_nothing(world, role, path, data):
    url = path.format(
        invitation=world.invitation.pk,
        other=world.other_member.pk,
        admin=world.admin.pk,
        member=world.member.pk,
        other_dip=world.other_photo_dip.pk,
        event=world.event.pk,
        group=world.group.pk,
    )
    client = world.client(role)
    before = database_state()
    if url.startswith("/admin/api/"):
        response = client.post(url, json.dumps(data(world)), content_type="application/json")
        assert response.status_code == (401 if role == "anonymous" else 403)
        assert "error" in response.json()
    else:
        response = client.post(url, data(world))
        assert response.status_code == 302
        if role == "bare_admin":
            assert response["Location"] == FACTOR_SETUP
        else:
            assert response["Location"].startswith("/django-admin/login/?next=")
    assert database_state() == before
    assert not UserRole.objects.filter(user__in=[world.member, world.other_member]).exists()
    assert UserRole.objects.filter(user=world.organiser).count() == 1
    assert UserRole.objects.filter(user=world.admin).exists()


def test_the_same_posts_work_for_an_admin(world):
    """The control for the test above: those requests are not refused for some unrelated reason."""
    client = world.client("admin")
    response = client.post("/django-admin/accounts/userrole/add/", {"user": world.member.pk, "role": "admin"})
    assert response.status_code == 302
    assert UserRole.objects.filter(user=world.member).exists()
    response = client.post(f"/django-admin/auth/group/{world.group.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not type(world.group).objects.filter(pk=world.group.pk).exists()


METHODS = ["PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]


@pytest.mark.parametrize("role", ["anonymous", "member", "admin", "bare_admin", "organiser"])
def test_other_http_methods_never_fail_and_never_change_data(world, role):
    """PUT, PATCH, DELETE, OPTIONS and HEAD on every pattern: a refusal or the GET answer, never a 500 or a write."""
    client = world.client(role)
    # Sample URLs first: some (a signed export link) need their object made.
    urls = [url_for(pattern, world) for pattern in PATTERNS if decision_for(pattern) != "shadowed"]
    before = database_state()
    answers = {}
    for url in urls:
        for method in METHODS:
            response = client.generic(method, url)
            answers[(method, url)] = response.status_code
            assert response.status_code < 500, (method, url, response.status_code)
    assert database_state() == before
    # The JSON endpoints and the forms only take what they are for.
    assert answers[("DELETE", f"/admin/api/gebruikers/{world.other_member.pk}/verwijderen")] in (401, 403, 405)
    assert answers[("PUT", "/challenge/plons")] in (401, 405)


# --- access that changes while a session lives -----------------------------------------------------


def test_a_revoked_admin_role_counts_from_the_next_request(world):
    from apps.accounts.services import admin_revoke

    client = world.client("admin")
    assert client.get("/admin/api/gebruikers").status_code == 200
    admin_revoke(user=User.objects.get(pk=world.admin.pk))
    assert client.get("/admin/api/gebruikers").status_code == 403
    assert client.get("/admin")["Location"] == "/dashboard"
    assert client.get("/django-admin/")["Location"].startswith("/django-admin/login/")
    assert client.get(f"/foto/{world.member_photo_dip.pk}").status_code == 404


def test_a_deactivated_account_loses_its_open_sessions(world):
    client = world.client("admin")
    User.objects.filter(pk=world.admin.pk).update(is_active=False)
    assert client.get("/dashboard")["Location"] == "/auth?next=/dashboard"
    assert client.get("/admin/api/gebruikers").status_code == 401
    assert client.get("/django-admin/")["Location"].startswith("/django-admin/login/")


def test_a_new_password_ends_the_other_sessions(world):
    """Django checks the session's password hash: after a reset, a stolen session is worth nothing."""
    stolen = world.client("member")
    assert stolen.get("/dashboard").status_code == 200
    member = User.objects.get(pk=world.member.pk)
    member.set_password("een-heel-nieuw-wachtwoord")
    member.save()
    assert stolen.get("/dashboard")["Location"] == "/auth?next=/dashboard"
    assert stolen.get(f"/foto/{world.member_photo_dip.pk}").status_code == 302


def test_a_deleted_members_session_opens_nothing(world):
    client = world.client("other_member")
    User.objects.filter(pk=world.other_member.pk).delete()
    assert client.get("/dashboard")["Location"] == "/auth?next=/dashboard"
    assert client.post("/challenge/plons").status_code == 401
