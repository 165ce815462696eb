"""The page cache as declarations (apps/core/page_cache.py), walked rather than listed by hand:
- every view that the URL conf reaches with the `cached_page` marker serves each member their own page,
  also when two members' versions are equal;
- every function that declares `pages_changed(...)` (found in the source) has a scenario below, and after
  it every cached page is what a fresh rendering shows: nothing stale anywhere."""

import ast
import base64
import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_added
from allauth.mfa.totp.internal.auth import TOTP
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.removal import user_delete, user_save
from apps.accounts.second_factor import second_factor_reset
from apps.accounts.services import (
    account_email_change_confirm,
    account_profile_update,
    account_register,
    admin_grant,
    admin_revoke,
)
from apps.attendance.services import attendance_save
from apps.attendance.shore import shore_tap
from apps.audit.services import AuditMeta
from apps.challenges.conditions import DipConditions
from apps.challenges.models import Challenge, ClubChallenge, Dip, UserBadge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.catalogue import challenge_delete, challenge_save
from apps.challenges.services.club_challenges import (
    ClubChallengeSpec,
    club_challenge_create,
    club_challenge_delete,
    club_challenge_join,
    club_challenge_leave,
)
from apps.challenges.services.dip_changes import dip_details_update, dip_photo_add
from apps.challenges.services.dips import dip_register
from apps.challenges.services.sharing import dip_photo_share_set
from apps.club.services import brrr_set, club_sharing_set, item_hide
from apps.core.page_cache import SCOPES
from apps.events.models import CalendarFeed, Event, EventGuest, EventParticipant, EventWaitlistEntry
from apps.events.services import (
    EventDetails,
    calendar_feed_renew,
    event_cancel,
    event_create,
    event_delete,
    event_leave,
    event_save,
    event_series_create,
    event_sign_up,
    event_update,
    event_waitlist_fill,
    events_deactivate,
    guest_cancel,
    guest_confirm,
    guest_holds_expire,
    guest_sign_up,
    guests_delete_old,
    guests_invite,
    series_dates_fill,
    series_join,
    series_leave,
    waitlist_offer_accept,
    waitlist_offer_decline,
    waitlist_offers_expire,
)
from apps.logbook.services import export_build, export_request, exports_delete_old
from apps.notifications.services import (
    club_message_send,
    mail_preference_set,
    notice_preferences_set,
    push_subscription_delete,
    push_subscription_save,
    push_subscriptions_expire,
)
from apps.notifications.services.mail_queue import notice_choice_off
from apps.shipping.services import physical_badges_mark, postal_address_delete, postal_address_save
from apps.together.models import Meetup
from tests.factories import (
    TOTP_SECRET,
    AdminFactory,
    ChallengeFactory,
    ClubChallengeFactory,
    EventFactory,
    EventSeriesFactory,
    InvitationFactory,
    MeetupFactory,
    UserFactory,
)
from tests.moving_in.page_cache_scenarios import forget_scenario, import_scenario, signed_in_scenario
from tests.test_page_cache import without_tokens

pytestmark = pytest.mark.django_db


def _walk(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and hasattr(pattern.callback, "cached_page"):
            yield "/" + prefix + str(pattern.pattern), pattern.callback


CACHED_PAGES = sorted(path for path, _view in _walk(get_resolver().url_patterns))
# Arguments a cached page's path may hold, filled in when it is visited: the world's first event.
PATH_ARGUMENTS = {
    "<event_id:event_id>": lambda: str(Event.objects.order_by("pk").values_list("pk", flat=True)[0]),
    "<event_id:meetup_id>": lambda: str(Meetup.objects.order_by("pk").values_list("pk", flat=True)[0]),
}


def concrete(path: str) -> str:
    for argument, value in PATH_ARGUMENTS.items():
        if argument in path:
            path = path.replace(argument, value())
    return path


def test_the_walk_finds_the_cached_pages_and_each_declares_known_scopes():
    assert {"/account", "/dashboard", "/challenge", "/samen", "/statistieken", "/admin"} <= set(CACHED_PAGES)
    assert {"/events/<event_id:event_id>", "/admin/events/", "/admin/events/<event_id:event_id>"} <= set(CACHED_PAGES)
    for path, view in _walk(get_resolver().url_patterns):
        unfilled = path
        for argument in PATH_ARGUMENTS:
            unfilled = unfilled.replace(argument, "1")
        assert "<" not in unfilled, f"{path}: a cached page with arguments needs its own walk here (PATH_ARGUMENTS)"
        assert view.cached_page.scopes[0] == "member" and set(view.cached_page.scopes) <= SCOPES.keys()


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page_text(response) -> str:
    return without_tokens(response.content.decode()) if response.status_code == 200 else ""


def visit(user, path: str) -> tuple[int, str]:
    response = client_for(user).get(concrete(path))
    return response.status_code, page_text(response)


def empty_the_cache():
    caches["pages"].clear()


@pytest.fixture
def two_admins():
    """Two admins (so every page opens for both) whose pages differ: names, dips, notes, an event."""
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    first = AdminFactory(full_name="Anna Eerste", email="anna@example.nl")
    second = AdminFactory(full_name="Bram Tweede", email="bram@example.nl")
    event = EventFactory(title="Nieuwjaarsduik", max_participants=5)
    for user, dips, spot in ((first, 3, "Zandvoort"), (second, 1, "Scheveningen")):
        challenge_start(user=user, challenge_id=waterdieren.pk)
        for _ in range(dips):
            dip = dip_register(user=user).dip
        dip_details_update(user=user, dip_id=dip.pk, conditions=DipConditions(spot=spot))
    event_sign_up(user=first, event_id=event.pk)
    MeetupFactory(proposer=first, place="Sloterplas")  # the world's first afspraak: /samen/<id>
    return first, second


# Cached pages that show every member the same (the safety text): still kept per member, like every member page.
SAME_FOR_EVERY_MEMBER = {"/veilig"}


@pytest.mark.parametrize("path", CACHED_PAGES)
def test_two_members_with_equal_versions_never_see_each_others_page(path, two_admins):
    first, second = two_admins
    User.objects.filter(pk__in=[first.pk, second.pk]).update(pages_version=7)
    empty_the_cache()
    status, page_of_first = visit(first, path)
    assert status == 200
    _status, served_to_second = visit(second, path)  # the first one's page is in the cache now
    empty_the_cache()
    _status, rendered_for_second = visit(second, path)
    assert served_to_second == rendered_for_second
    if path in SAME_FOR_EVERY_MEMBER:
        assert page_of_first == rendered_for_second  # nothing of the member on it: there is nothing to mix up
    else:
        assert page_of_first != rendered_for_second  # the pages do differ: the check above has teeth


# --- every declaring function, and a scenario that runs it ------------------------------------------------


def declaring_functions() -> set[str]:
    """Every function in apps/ that calls pages_changed(...), as "module.function"."""
    found = set()
    root = Path(settings.BASE_DIR)
    for path in (root / "apps").rglob("*.py"):
        if "migrations" in path.parts or path.name == "page_cache.py":
            continue
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                isinstance(call, ast.Call) and getattr(call.func, "id", None) == "pages_changed"
                for call in ast.walk(node)
            ):
                found.add(f"{module}.{node.name}")
    return found


class World:
    """A member with a card and a badge to send, an admin, an event with a place and a waitlist."""

    def __init__(self):
        self.waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
        self.member = UserFactory(full_name="Marit Zwemmer", email="marit@example.nl", newsletter_consent=True)
        self.admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
        self.card = challenge_start(user=self.member, challenge_id=self.waterdieren.pk)
        for _ in range(5):
            self.dip = dip_register(user=self.member).dip
        self.event = EventFactory(title="Nieuwjaarsduik", max_participants=1)
        self.other = UserFactory(full_name="Otto Ander")
        event_sign_up(user=self.other, event_id=self.event.pk)
        event_sign_up(user=self.member, event_id=self.event.pk)  # on the waitlist
        # The world's first afspraak (/samen/<id>), proposed by the admin, who stays in every scenario.
        self.meetup = MeetupFactory(proposer=self.admin, place="Sloterplas")

    def pages(self) -> dict[tuple[str, str], tuple[int, str]]:
        """Every cached page as each viewer sees it now; one sign-in per viewer and look (half of a look's cost
        was signing in before each page)."""
        pages = {}
        for who, user in (("member", self.member), ("admin", self.admin)):
            client = client_for(user)
            for path in CACHED_PAGES:
                response = client.get(concrete(path))
                pages[(who, path)] = response.status_code, page_text(response)
        return pages


def _grant(world):
    TOTP.activate(world.member, TOTP_SECRET)
    return lambda: admin_grant(user=world.member), ("member", "/dashboard")


def _revoke(world):
    TOTP.activate(world.member, TOTP_SECRET)
    admin_grant(user=world.member)
    return lambda: admin_revoke(user=world.member), ("member", "/dashboard")


def _second_factor(world):
    admin_grant(user=world.member)  # the role without a factor: a member until they add one

    def act():
        authenticator = TOTP.activate(world.member, TOTP_SECRET).instance
        authenticator_added.send(sender=Authenticator, request=None, user=world.member, authenticator=authenticator)

    return act, ("member", "/dashboard")


def _register(world):
    code = InvitationFactory().code
    new = {"full_name": "Nieuw Lid", "email": "nieuw@example.nl", "password": "lang-genoeg-123"}
    act = lambda: account_register(code=code, **new)  # noqa: E731
    return act, ("admin", "/admin")


def _profile(world):
    act = lambda: account_profile_update(  # noqa: E731
        user=world.member, full_name="Marit Nieuw", email=world.member.email, newsletter_consent=False
    )
    return act, ("member", "/dashboard")


def _email_confirm(world):
    account_profile_update(
        user=world.member, full_name=world.member.full_name, email="marit@nieuw.nl", newsletter_consent=True
    )
    pending = EmailAddress.objects.get(email="marit@nieuw.nl")
    return lambda: account_email_change_confirm(email_address_id=pending.pk), ("member", "/account")


def _user_remove(world):
    return lambda: user_delete(actor=world.admin, user_id=world.other.pk), ("admin", "/admin")


def _user_save(world):
    def act():
        world.member.full_name = "Marit via Django-admin"
        user_save(user=world.member)

    return act, ("member", "/dashboard")


def _physical(world):
    awards = list(UserBadge.objects.values_list("pk", flat=True))
    return lambda: physical_badges_mark(award_ids=awards, status="verstuurd"), ("member", "/dashboard")


def _start(world):
    starter = ChallengeFactory(name="Proefkaart", target_dips=1)
    dip_register(user=world.member)  # the card is only left for a new one when it is done
    world.card.refresh_from_db()
    world.card.completed_at = timezone.now()
    world.card.save()
    return lambda: challenge_start(user=world.member, challenge_id=starter.pk), ("member", "/challenge")


def _dip(world):
    return lambda: dip_register(user=world.member), ("member", "/statistieken")


def _same_swim(world):
    """One swim, one stamp: a second tap of the same swim adds its spot to the dip already there (the stamp card)."""

    def act():
        with override_settings(DIP_SAME_SWIM_HOURS=3):
            assert dip_register(user=world.member, conditions=DipConditions(spot="Sloterplas")).confirmed

    return act, ("member", "/challenge")


def _dip_details(world):
    act = lambda: dip_details_update(  # noqa: E731
        user=world.member, dip_id=world.dip.pk, conditions=DipConditions(water_temperature=Decimal("4.5"))
    )
    return act, ("member", "/statistieken")


def _challenge_save(world):
    def act():
        world.waterdieren.name = "Waterdieren Kaart 2027"
        challenge_save(challenge=world.waterdieren)

    return act, ("member", "/challenge")


def _challenge_delete(world):
    unused = ChallengeFactory(name="Nooit gestart", target_dips=5)
    return lambda: challenge_delete(challenge_id=unused.pk), ("admin", "/dashboard")  # no card: the catalogue


def _seed_catalogue(world):
    Challenge.objects.filter(pk=world.waterdieren.pk).update(description="Veranderd buiten de services")
    return lambda: call_command("seed_catalogue", stdout=open("/dev/null", "w")), ("member", "/dashboard")  # noqa: SIM115


def _sign_up(world):
    world.event.max_participants = 3
    event_save(event=world.event)
    return lambda: event_sign_up(user=world.admin, event_id=world.event.pk), ("member", "/samen")


def _leave(world):
    return lambda: event_leave(user=world.other, event_id=world.event.pk), ("member", "/samen")


def _series_dates(world) -> list[Event]:
    series = EventSeriesFactory()
    start = timezone.now() + datetime.timedelta(days=3)
    return [
        EventFactory(title="Zondagduik", series=series, event_date=start + datetime.timedelta(weeks=week))
        for week in range(2)
    ]


def _series_join(world):
    dates = _series_dates(world)
    return lambda: series_join(user=world.member, series_id=dates[0].series_id), ("member", "/samen")


def _series_leave(world):
    dates = _series_dates(world)
    series_join(user=world.member, series_id=dates[0].series_id)
    return lambda: series_leave(user=world.member, series_id=dates[0].series_id), ("member", "/samen")


def _series_dates_fill(world):
    dates = _series_dates(world)
    series_join(user=world.member, series_id=dates[0].series_id)
    # A date added before the others: it leads the series' row on the plan list, where her sign-up shows.
    added = EventFactory(series_id=dates[0].series_id, event_date=dates[0].event_date - datetime.timedelta(days=1))
    return lambda: series_dates_fill(event_id=added.pk), ("member", "/samen")


def _event_save(world):
    def act():
        world.event.title = "Nieuwjaarsduik (hernoemd)"
        event_save(event=world.event)

    return act, ("member", "/samen")


def _event_delete(world):
    nobody = EventFactory(title="Zonder deelnemers", event_date=timezone.now() + datetime.timedelta(days=40))
    return lambda: event_delete(event_id=nobody.pk), ("admin", "/samen")


def _deactivate(world):
    return lambda: events_deactivate(event_ids=[world.event.pk]), ("member", "/dashboard")


def _waitlist_fill(world):
    EventParticipant.objects.filter(user=world.other).update(event=EventFactory())  # a place freed past the services

    return lambda: event_waitlist_fill(event_id=world.event.pk), ("member", "/samen")


def _participant_deleted(world):
    return lambda: EventParticipant.objects.filter(user=world.other).delete(), ("member", "/samen")


def _waitlist_entry_deleted(world):
    return lambda: EventWaitlistEntry.objects.filter(user=world.member).delete(), ("member", "/samen")


def _offered(world):
    event_leave(user=world.other, event_id=world.event.pk)  # the member, first in line, gets the offer


def _offer_accept(world):
    _offered(world)
    return lambda: waitlist_offer_accept(user=world.member, event_id=world.event.pk), ("member", "/samen")


def _offer_decline(world):
    _offered(world)
    return lambda: waitlist_offer_decline(user=world.member, event_id=world.event.pk), ("member", "/samen")


def _offers_expire(world):
    _offered(world)
    EventWaitlistEntry.objects.filter(user=world.member).update(offer_expires_at=timezone.now())
    return lambda: waitlist_offers_expire(), ("member", "/samen")


def _open_for_guests(world):
    return EventFactory(title="Gastenduik", max_participants=5, open_for_guests=True)


def _guest_sign_up(world):
    event = _open_for_guests(world)
    return (
        lambda: guest_sign_up(token=event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True),
        ("member", "/samen"),
    )


def _guest_cancel(world):
    event = _open_for_guests(world)
    guest = guest_sign_up(token=event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True)
    return lambda: guest_cancel(guest_id=guest.pk), ("member", "/samen")


def _guest_confirm(world):
    """A guest of the world's event confirms their address: the organiser's event page lists them now."""
    world.event.open_for_guests, world.event.max_participants = True, 3  # room for the waiting member and a guest
    world.event.save()
    guest = guest_sign_up(token=world.event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True)
    return lambda: guest_confirm(guest_id=guest.pk), ("admin", "/admin/events/<event_id:event_id>")


def _guest_holds_expire(world):
    """A sign-up whose hold ran out goes, and its place is offered to the member waiting for it (/events)."""
    event = EventFactory(title="Gastenduik", max_participants=1, open_for_guests=True)
    guest = guest_sign_up(token=event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True)
    event_sign_up(user=world.member, event_id=event.pk)  # on the waitlist: the guest holds the place
    EventGuest.objects.filter(pk=guest.pk).update(confirm_by=timezone.now())
    return lambda: guest_holds_expire(), ("member", "/samen")


def _guest_deleted(world):
    event = _open_for_guests(world)
    guest_sign_up(token=event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True)
    return lambda: EventGuest.objects.filter(event=event).delete(), ("member", "/samen")


def _guests_delete_old(world):
    past = EventFactory(
        title="Oude duik", event_date=timezone.now() - datetime.timedelta(days=40), open_for_guests=True
    )
    EventParticipant.objects.create(event=past, user=world.member)
    EventGuest.objects.create(event=past, name="Gijs Gast", email="gijs@example.nl", safety_agreed_at=timezone.now())
    return lambda: guests_delete_old(), ("member", "/samen")


def _guests_invite(world):
    """The world's event is over and had a guest: the organiser's event page marks them invited."""
    Event.objects.filter(pk=world.event.pk).update(event_date=timezone.now() - datetime.timedelta(days=1))
    guest = EventGuest.objects.create(
        event=world.event, name="Gijs Gast", email="gijs@example.nl", safety_agreed_at=timezone.now()
    )
    return (
        lambda: guests_invite(guest_ids=[guest.pk], invited_by=world.admin),
        ("admin", "/admin/events/<event_id:event_id>"),
    )


def _calendar(world):
    return lambda: calendar_feed_renew(user=world.member), ("member", "/samen")


def _mail_preferences(world):
    return lambda: mail_preference_set(user=world.member, event_mails=False), ("member", "/account")


# A browser's subscription as the server accepts it: a real P-256 key, and (the tests' only way past the list of
# push services) an http endpoint on loopback with WEBPUSH_ALLOW_INSECURE_LOOPBACK.
_BROWSER = {
    "endpoint": "http://127.0.0.1:9/send/abc",
    "keys": {
        "p256dh": base64.urlsafe_b64encode(
            ec.generate_private_key(ec.SECP256R1())
            .public_key()
            .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        )
        .decode()
        .rstrip("="),
        "auth": "AAAAAAAAAAAAAAAAAAAAAA",
    },
}
_PUSH_SETTINGS = {"VAPID_PUBLIC_KEY": "pub", "VAPID_PRIVATE_KEY": "priv", "WEBPUSH_ALLOW_INSECURE_LOOPBACK": True}


def _push_subscribe(world):
    def act():
        with override_settings(**_PUSH_SETTINGS):
            push_subscription_save(user=world.member, subscription=_BROWSER, device_label="Pixel")

    return act, ("member", "/account")


def _push_device_delete(world):
    with override_settings(**_PUSH_SETTINGS):
        saved = push_subscription_save(user=world.member, subscription=_BROWSER, device_label="Pixel")
    return lambda: push_subscription_delete(user=world.member, subscription_id=saved.pk), ("member", "/account")


def _push_expired(world):
    with override_settings(**_PUSH_SETTINGS):
        saved = push_subscription_save(user=world.member, subscription=_BROWSER, device_label="Pixel")
    act = lambda: push_subscriptions_expire(subscription_ids=[saved.pk])  # noqa: E731
    return act, ("member", "/account")


def _notice_choice_off(world):
    return lambda: notice_choice_off(user=world.member, kind="club_message"), ("member", "/account")


def _second_factor_reset(world):
    TOTP.activate(world.member, TOTP_SECRET)
    return lambda: second_factor_reset(user=world.member, meta=AuditMeta.command("test")), ("member", "/account")


def _notice_preferences(world):
    return lambda: notice_preferences_set(user=world.member, choices={"club_message": "off"}), ("member", "/account")


def _club_message(world):
    act = lambda: club_message_send(author=world.admin, title="Zondag", body="Samen zwemmen om 10:00")  # noqa: E731
    return act, ("member", "/dashboard")


def _address_save(world):
    act = lambda: postal_address_save(  # noqa: E731
        user=world.member, recipient="", street="Strandweg 1", postcode="2042 ab", city="Zandvoort", country=""
    )
    return act, ("member", "/account")


def _address_delete(world):
    postal_address_save(
        user=world.member, recipient="", street="Strandweg 1", postcode="2042 AB", city="Zandvoort", country=""
    )
    return lambda: postal_address_delete(user=world.member), ("member", "/account")


def _export_request(world):
    return lambda: export_request(user=world.member), ("member", "/account")


def _export_build(world):
    export = export_request(user=world.member)
    return lambda: export_build(export_id=export.pk, job=str(export.job)), ("member", "/account")


def _exports_delete_old(world):
    export = export_request(user=world.member)
    export_build(export_id=export.pk, job=str(export.job))
    later = timezone.now() + datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS, minutes=1)
    return lambda: exports_delete_old(now=later), ("member", "/account")


def _authenticator_written(world):
    TOTP.activate(world.member, TOTP_SECRET)  # the app, as allauth's flow leaves it
    # Past allauth's flows (the Django admin, or a passkey renamed): /account lists the factors.
    return lambda: Authenticator.objects.filter(user=world.member).delete(), ("member", "/account")


def _calendar_link_deleted(world):
    calendar_feed_renew(user=world.member)
    return lambda: CalendarFeed.objects.filter(user=world.member).delete(), ("member", "/account")


def _club_create(world):
    spec = ClubChallengeSpec(
        name="Dip a Day December",
        description="",
        starts_on=timezone.localdate(),
        ends_on=timezone.localdate() + datetime.timedelta(days=30),
        kind=ClubChallenge.Kind.EVERY_DAY,
    )
    return lambda: club_challenge_create(spec=spec), ("member", "/dashboard")


def _club_delete(world):
    unused = ClubChallengeFactory(name="Niemand doet mee")
    return lambda: club_challenge_delete(club_challenge_id=unused.pk), ("member", "/dashboard")


def _club_join(world):
    # Someone else joining moves the number taking part on the member's dashboard.
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=100)
    return lambda: club_challenge_join(user=world.admin, club_challenge_id=goal.pk), ("member", "/dashboard")


def _club_leave(world):
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=100)
    club_challenge_join(user=world.admin, club_challenge_id=goal.pk)
    return lambda: club_challenge_leave(user=world.admin, club_challenge_id=goal.pk), ("member", "/dashboard")


def _club_goal_recount(world):
    # Another member's dip (without a card) moves the club goal's total on the member's dashboard.
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=100)
    club_challenge_join(user=world.member, club_challenge_id=goal.pk)
    club_challenge_join(user=world.admin, club_challenge_id=goal.pk)
    return lambda: dip_register(user=world.admin), ("member", "/dashboard")


def _details(world, **changes) -> EventDetails:
    values = {"title": "Zondagduik", "starts_at": timezone.now() + datetime.timedelta(days=3)} | changes
    return EventDetails(**values)


def _event_create(world):
    return lambda: event_create(details=_details(world)), ("admin", "/admin/events/")


def _event_series_create(world):
    until = timezone.localdate() + datetime.timedelta(weeks=3)
    return lambda: event_series_create(details=_details(world), repeat_until=until), ("member", "/samen")


def _event_update(world):
    details = _details(world, title="Nieuwjaarsduik verplaatst", starts_at=world.event.event_date, max_participants=1)
    return lambda: event_update(event_id=world.event.pk, details=details), ("member", "/events/<event_id:event_id>")


def _event_cancel(world):
    return lambda: event_cancel(event_id=world.event.pk, reason="Storm"), ("admin", "/admin/events/")


def _attendance_save(world):
    # Started minutes ago, after the member's card (a card takes no dip from before it started).
    swim = EventFactory(title="Zondagduik", event_date=timezone.now() - datetime.timedelta(minutes=5))
    EventParticipant.objects.create(event=swim, user=world.member)

    def act():
        attendance_save(event_id=swim.pk, organiser=world.admin, present_user_ids=[world.member.pk])

    return act, ("member", "/dashboard")


def _attendance_present(world):
    # "Aan de waterkant": her tap "in het water" marks her present. Today, after the member's card started.
    now = timezone.localtime()
    swim = EventFactory(title="Waterkantduik", event_date=max(now - datetime.timedelta(minutes=5), now.replace(hour=0)))
    EventParticipant.objects.create(event=swim, user=world.member)

    def act():
        shore_tap(event_id=swim.pk, organiser=world.admin, swimmer=f"lid-{world.member.pk}", kind="in", tapped_at=now)

    return act, ("member", "/dashboard")


def _club_sharing(world):
    return lambda: club_sharing_set(user=world.member, share_dips=True), ("admin", "/club")


def _brrr(world):
    club_sharing_set(user=world.member, share_dips=True)
    return lambda: brrr_set(user=world.admin, kind="dip", object_id=world.dip.pk, given=True), ("member", "/club")


def _club_hide(world):
    club_sharing_set(user=world.member, share_dips=True)
    return lambda: item_hide(actor=world.admin, kind="dip", object_id=world.dip.pk), ("member", "/club")


def _dip_photo_share(world):
    club_sharing_set(user=world.member, share_dips=True)
    Dip.objects.filter(pk=world.dip.pk).update(photo="1/foto.jpg", thumbnail="1/foto.thumb.jpg")  # past the services
    return lambda: dip_photo_share_set(user=world.member, dip_id=world.dip.pk, share=True), ("admin", "/club")


def _dip_photo_add(world):
    from tests.challenges.photo_samples import image_bytes

    club_sharing_set(user=world.member, share_dips=True)
    photo = ProcessedPhoto(full=image_bytes(), thumbnail=image_bytes())
    return lambda: dip_photo_add(user=world.member, dip_id=world.dip.pk, photo=photo, share=True), ("admin", "/club")


def _meetup(world, **kwargs):
    from apps.together.services import meetup_propose

    when = timezone.now() + datetime.timedelta(days=1)
    return meetup_propose(user=world.other, starts_at=when, place="Sloterplas", **kwargs)


def _meetup_propose(world):
    from apps.together.services import meetup_propose

    when = timezone.now() + datetime.timedelta(days=2)
    return lambda: meetup_propose(user=world.other, starts_at=when, place="IJ-haven"), ("member", "/samen")


def _meetup_join(world):
    from apps.together.services import meetup_join

    meetup = _meetup(world)
    return lambda: meetup_join(user=world.admin, meetup_id=meetup.pk), ("member", "/dashboard")


def _meetup_leave(world):
    from apps.together.services import meetup_join, meetup_leave

    meetup = _meetup(world)
    meetup_join(user=world.admin, meetup_id=meetup.pk)
    return lambda: meetup_leave(user=world.admin, meetup_id=meetup.pk), ("member", "/samen")


def _meetup_cancel(world):
    from apps.together.services import meetup_cancel

    meetup = _meetup(world)
    return lambda: meetup_cancel(user=world.other, meetup_id=meetup.pk), ("member", "/samen")


def _meetup_participant_gone(world):
    from apps.together.models import MeetupParticipant
    from apps.together.services import meetup_join

    meetup = _meetup(world)
    meetup_join(user=world.admin, meetup_id=meetup.pk)
    act = lambda: MeetupParticipant.objects.filter(user=world.admin).delete()  # noqa: E731
    return act, ("member", "/samen")


def _buddy_tag(world):
    challenge_start(user=world.other, challenge_id=world.waterdieren.pk)
    return lambda: dip_register(user=world.other, buddy_ids=[world.member.pk]), ("member", "/dashboard")


def _tagged(world):
    challenge_start(user=world.other, challenge_id=world.waterdieren.pk)
    return dip_register(user=world.other, buddy_ids=[world.admin.pk]).dip.buddies.get()


def _buddy_accept(world):
    from apps.together.services import buddy_accept

    challenge_start(user=world.admin, challenge_id=world.waterdieren.pk)
    tag = _tagged(world)
    return lambda: buddy_accept(user=world.admin, tag_id=tag.pk), ("admin", "/dashboard")


def _buddy_decline(world):
    from apps.together.services import buddy_decline

    tag = _tagged(world)
    return lambda: buddy_decline(user=world.admin, tag_id=tag.pk), ("admin", "/dashboard")


def _buddy_tag_gone(world):
    tag = _tagged(world)
    return lambda: type(tag).objects.filter(pk=tag.pk).delete(), ("admin", "/dashboard")


def _tagging(world):
    from apps.together.services import tagging_set

    return lambda: tagging_set(user=world.member, allowed=False), ("member", "/account")


def _briefing(world):
    from apps.together.services import briefing_read

    return lambda: briefing_read(user=world.member), ("member", "/challenge")


def _reply_post(world):
    from apps.together.replies import reply_post

    act = lambda: reply_post(user=world.member, meetup_id=world.meetup.pk, text="Ik ben 5 minuten later")  # noqa: E731
    return act, ("admin", "/samen/<event_id:meetup_id>")


def _event_reply_post(world):
    """A reply under an event: its page (under EVENTS) shows it."""
    from apps.together.replies import reply_post

    act = lambda: reply_post(user=world.member, event_id=world.event.pk, text="Wie rijdt er mee?")  # noqa: E731
    return act, ("admin", "/events/<event_id:event_id>")


def _reply_delete(world):
    from apps.together.replies import reply_delete, reply_post

    reply = reply_post(user=world.member, event_id=world.event.pk, text="Oeps")
    return lambda: reply_delete(user=world.member, reply_id=reply.pk), ("admin", "/events/<event_id:event_id>")


def _reply_gone(world):
    from apps.together.models import Reply
    from apps.together.replies import reply_post

    reply_post(user=world.other, meetup_id=world.meetup.pk, text="Van Otto")
    # Past the service: gone with an account, or in a cascade.
    act = lambda: Reply.objects.filter(author=world.other).delete()  # noqa: E731
    return act, ("member", "/samen/<event_id:meetup_id>")


# Each declaring function: a scenario that sets up (before the pages are cached) and returns the act and the
# page (viewer, path) the act visibly changes (None: no cached page shows it, then only freshness is checked).
SCENARIOS = {
    "apps.accounts.services.account_register": _register,
    "apps.accounts.services.role_grant": _grant,
    "apps.accounts.services.role_revoke": _revoke,
    "apps.accounts.services.account_profile_update": _profile,
    "apps.accounts.services.account_email_change_confirm": _email_confirm,
    "apps.accounts.removal._user_remove": _user_remove,
    "apps.accounts.removal.user_save": _user_save,
    "apps.accounts.second_factor._second_factor_changed": _second_factor,
    "apps.accounts.second_factor._authenticator_written": _authenticator_written,
    "apps.shipping.services.physical_badges_mark": _physical,
    "apps.shipping.services.postal_address_save": _address_save,
    "apps.shipping.services.postal_address_delete": _address_delete,
    "apps.logbook.services.export_request": _export_request,
    "apps.logbook.services.export_build": _export_build,
    "apps.moving_in.services.import_data": import_scenario,
    "apps.moving_in.services.bookkeeping_forget": forget_scenario,
    "apps.moving_in.services.member_signed_in": signed_in_scenario,
    "apps.logbook.services.exports_delete_old": _exports_delete_old,
    "apps.challenges.services.cards.challenge_start": _start,
    "apps.challenges.services.recount.user_dip_count_refresh": _dip,
    "apps.challenges.services.dip_changes.dip_details_update": _dip_details,
    "apps.challenges.services.catalogue.challenge_save": _challenge_save,
    "apps.challenges.services.catalogue.challenge_delete": _challenge_delete,
    "apps.challenges.management.commands.seed_catalogue.handle": _seed_catalogue,
    "apps.events.services.signups._sign_up": _sign_up,
    "apps.events.services.signups.event_leave": _leave,
    "apps.events.services.series.series_join": _series_join,
    "apps.events.services.series.series_leave": _series_leave,
    "apps.events.services.series.series_dates_fill": _series_dates_fill,
    "apps.events.services.changes.event_save": _event_save,
    "apps.events.services.changes.event_delete": _event_delete,
    "apps.events.services.changes.events_deactivate": _deactivate,
    "apps.events.services.changes.event_waitlist_fill": _waitlist_fill,
    "apps.events.services.changes.calendar_feed_renew": _calendar,
    "apps.events.services.signups.waitlist_offer_accept": _offer_accept,
    "apps.events.services.signups.waitlist_offer_decline": _offer_decline,
    "apps.events.services.signups.waitlist_offers_expire": _offers_expire,
    "apps.events.services.guests.guest_sign_up": _guest_sign_up,
    "apps.events.services.guests.guest_cancel": _guest_cancel,
    "apps.events.services.guests.guest_confirm": _guest_confirm,
    "apps.events.services.guests.guest_holds_expire": _guest_holds_expire,
    "apps.events.services.guests.guests_delete_old": _guests_delete_old,
    "apps.events.services.guests.guests_invite": _guests_invite,
    "apps.events.signals.guest_gone": _guest_deleted,
    "apps.events.signals.fill_waitlist_after_delete": _participant_deleted,
    "apps.events.signals.waitlist_changed_after_delete": _waitlist_entry_deleted,
    "apps.events.signals.calendar_link_gone": _calendar_link_deleted,
    "apps.notifications.services.mail_queue.mail_preference_set": _mail_preferences,
    "apps.notifications.services.push_subscriptions.push_subscription_save": _push_subscribe,
    "apps.notifications.services.push_subscriptions.push_subscription_delete": _push_device_delete,
    "apps.notifications.services.push_subscriptions.notice_preferences_set": _notice_preferences,
    "apps.notifications.services.mail_queue.notice_choice_off": _notice_choice_off,
    "apps.accounts.second_factor.second_factor_reset": _second_factor_reset,
    "apps.notifications.services.push_subscriptions.push_subscriptions_expire": _push_expired,
    "apps.notifications.services.club_messages.club_message_send": _club_message,
    "apps.challenges.services.club_challenges.club_challenge_create": _club_create,
    "apps.challenges.services.club_challenges.club_challenge_delete": _club_delete,
    "apps.challenges.services.club_challenges.club_challenge_join": _club_join,
    "apps.challenges.services.club_challenges.club_challenge_leave": _club_leave,
    "apps.challenges.services.club_progress.club_goals_recount": _club_goal_recount,
    "apps.events.services.organising.event_create": _event_create,
    "apps.events.services.organising.event_series_create": _event_series_create,
    "apps.events.services.organising.event_update": _event_update,
    "apps.events.services.organising.event_cancel": _event_cancel,
    "apps.attendance.services.attendance_save": _attendance_save,
    "apps.attendance.services.attendance_present": _attendance_present,
    "apps.club.services.club_sharing_set": _club_sharing,
    "apps.club.services.brrr_set": _brrr,
    "apps.club.services.item_hide": _club_hide,
    "apps.challenges.services.sharing.dip_photo_share_set": _dip_photo_share,
    "apps.challenges.services.dip_changes.dip_photo_add": _dip_photo_add,
    "apps.challenges.services.dips._buddies_tag": _buddy_tag,
    "apps.challenges.services.dips._dip_register_locked": _same_swim,
    "apps.together.services.meetup_propose": _meetup_propose,
    "apps.together.services.meetup_join": _meetup_join,
    "apps.together.services.meetup_leave": _meetup_leave,
    "apps.together.services.meetup_cancel": _meetup_cancel,
    "apps.together.services.buddy_accept": _buddy_accept,
    "apps.together.services.buddy_decline": _buddy_decline,
    "apps.together.services.tagging_set": _tagging,
    "apps.together.services.briefing_read": _briefing,
    "apps.together.signals.meetup_participant_gone": _meetup_participant_gone,
    "apps.together.signals.buddy_tag_gone": _buddy_tag_gone,
    "apps.together.replies.reply_post": _reply_post,
    "apps.together.replies.reply_delete": _reply_delete,
    "apps.together.signals.reply_gone": _reply_gone,
}


def test_a_reply_under_an_event_leaves_no_stale_page():
    """reply_post's other branch (an event's page, under EVENTS) as the walk above checks it."""
    world = World()
    act, shows = _event_reply_post(world)
    empty_the_cache()
    before = world.pages()
    act()
    served = world.pages()
    empty_the_cache()
    rendered = world.pages()
    assert [page for page in served if served[page] != rendered[page]] == []
    assert before[shows] != rendered[shows]


def test_every_declaring_function_has_a_scenario():
    assert declaring_functions() == set(SCENARIOS)


@pytest.mark.parametrize("declaring", sorted(SCENARIOS))
def test_after_each_declared_write_every_cached_page_is_fresh(declaring):
    world = World()
    act, shows = SCENARIOS[declaring](world)
    empty_the_cache()
    before = world.pages()  # every page of both viewers in the cache
    act()
    served = world.pages()
    empty_the_cache()
    rendered = world.pages()
    stale = [page for page in served if served[page] != rendered[page]]
    assert not stale, f"{declaring}: stale {stale}"
    if shows is not None:
        assert before[shows] != rendered[shows], f"{declaring}: the scenario does not change {shows}"


def test_an_event_without_participants_deleted_in_the_django_admin_leaves_every_page(admin_client, member):
    event = EventFactory(title="Niemand kwam")
    assert "Niemand kwam" in client_for(member).get("/samen").content.decode()
    response = admin_client.post(f"/django-admin/events/event/{event.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert "Niemand kwam" not in client_for(member).get("/samen").content.decode()
    assert "Niemand kwam" not in client_for(member).get("/dashboard").content.decode()
