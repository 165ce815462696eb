"""Shared set-up for the security tests: one small club with objects of two members and an admin, and a
"bare admin" (the admin role without a second factor), who must get no more than a member, and an organiser
("Organisator", with a second factor: the events pages, attendance and club messages of /admin, nothing more)."""

import copy
import time
from dataclasses import dataclass

import pytest
from allauth.account.models import EmailAddress
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.db import transaction
from django.test import Client

from apps.accounts.models import User, UserRole
from apps.attendance.models import Attendance, ShoreList, ShoreSwimmer
from apps.challenges.models import (
    Badge,
    Challenge,
    ClubChallenge,
    ClubChallengeEntry,
    Dip,
    DipBuddy,
    UserBadge,
    UserChallenge,
    photo_storage,
)
from apps.club.models import Brrr, ClubSharing, HiddenItem
from apps.events.models import (
    CalendarFeed,
    Event,
    EventParticipant,
    EventSeries,
    EventSeriesMember,
    EventSeriesSkip,
    EventWaitlistEntry,
)
from apps.invitations.models import Invitation
from apps.logbook.models import MemberExport
from apps.notifications.models import InvitationOptOut, Mail, MailPreference
from apps.shipping.models import PostalAddress
from apps.together.models import Meetup, MeetupParticipant, Reply
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    AdminFactory,
    AttendanceFactory,
    BadgeFactory,
    ChallengeFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    ClubSharingFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    EventSeriesFactory,
    InvitationFactory,
    MeetupFactory,
    OrganiserFactory,
    PostalAddressFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)

# The tables whose content a refused request must leave exactly as it was.
GUARDED_MODELS = [
    User,
    UserRole,
    Challenge,
    Badge,
    UserChallenge,
    Dip,
    UserBadge,
    PostalAddress,
    Event,
    EventParticipant,
    Invitation,
    Group,
    EmailAddress,
    EventWaitlistEntry,
    CalendarFeed,
    Mail,
    MailPreference,
    InvitationOptOut,
    MemberExport,
    ClubChallenge,
    ClubChallengeEntry,
    EventSeries,
    Attendance,
    ClubSharing,
    Brrr,
    HiddenItem,
    Meetup,
    MeetupParticipant,
    DipBuddy,
    Reply,
    ShoreList,
    ShoreSwimmer,
]


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """allauth counts attempts in the cache: one test's attempts must not lock out the next test."""
    cache.clear()
    yield
    cache.clear()


def photo_files() -> set[str]:
    """Every file in the private photo storage (the test settings keep it on the local disk)."""
    storage = photo_storage()
    found: set[str] = set()

    def walk(folder: str) -> None:
        dirs, files = storage.listdir(folder)
        for name in files:
            found.add(f"{folder}/{name}" if folder else name)
        for sub in dirs:
            walk(f"{folder}/{sub}" if folder else sub)

    try:
        walk("")
    except FileNotFoundError:
        pass
    return found


def database_state() -> dict[str, list[tuple]]:
    """Every row of every guarded table (sessions and last_login excluded): compare before and after."""
    state = {}
    for model in GUARDED_MODELS:
        fields = [f.attname for f in model._meta.concrete_fields if f.attname != "last_login"]
        state[model._meta.label] = sorted(model.objects.order_by().values_list(*fields), key=repr)
    state["admin.LogEntry"] = sorted(apps.get_model("admin", "LogEntry").objects.values_list("pk", flat=True), key=repr)
    return state


def counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in GUARDED_MODELS} | {"files": len(photo_files())}


PHOTO_SIZES = {"full": (64, 48), "thumbnail": (16, 12)}


def save_photo(user: User, name: str) -> tuple[str, str]:
    storage = photo_storage()
    full = storage.save(f"{user.pk}/{name}.jpg", ContentFile(image_bytes(size=PHOTO_SIZES["full"])))
    thumb = storage.save(f"{user.pk}/{name}.thumb.jpg", ContentFile(image_bytes(size=PHOTO_SIZES["thumbnail"])))
    return full, thumb


@dataclass
class World:
    member: User
    other_member: User
    admin: User
    bare_admin: User
    organiser: User
    challenge: Challenge
    badge: Badge
    member_card: UserChallenge
    other_card: UserChallenge
    member_photo_dip: Dip
    member_plain_dip: Dip
    other_photo_dip: Dip
    user_badge: UserBadge
    event: Event
    participation: EventParticipant
    invitation: Invitation
    group: Group
    email_address: EmailAddress
    club_challenge: ClubChallenge
    meetup: Meetup  # proposed by the other member; the member does not go (yet)
    buddy_tag: DipBuddy  # the other member's dip names the member, not answered yet
    reply: Reply  # the other member's, under their afspraak

    def user(self, role: str) -> User | None:
        return {
            "anonymous": None,
            "member": self.member,
            "other_member": self.other_member,
            "admin": self.admin,
            "bare_admin": self.bare_admin,
            "organiser": self.organiser,
        }[role]

    def client(self, role: str, **kwargs) -> Client:
        client = Client(**kwargs)
        user = self.user(role)
        if user is not None:
            client.force_login(user)
        return client


ROLES = ["anonymous", "member", "other_member", "admin", "bare_admin", "organiser"]


@pytest.fixture
def world(db) -> World:
    return build_world()


# A module's world is built anew once it is this old (seconds): half the shortest time rule its objects meet
# (a dip is undone within 10 minutes, apps/challenges/services/dips.py), so a slow run sees what a fresh one does.
WORLD_MAX_AGE = 5 * 60


class ModuleWorld:
    """The world of one module, in a transaction of its own that is rolled back when the module is done."""

    def __init__(self, blocker):
        self.blocker = blocker
        self.world: World | None = None
        self.built_at = 0.0
        self._outer = None

    def build(self) -> None:
        with self.blocker.unblock():
            self._outer = transaction.atomic()
            self._outer.__enter__()
            self.world = build_world()
        self.built_at = time.monotonic()

    def drop(self) -> None:
        with self.blocker.unblock():
            transaction.set_rollback(True)
            self._outer.__exit__(None, None, None)

    def renew_if_old(self) -> None:
        if time.monotonic() - self.built_at > WORLD_MAX_AGE:
            self.drop()
            self.build()


@pytest.fixture(scope="module")
def world_built_once(request, django_db_setup, django_db_blocker):
    """The world built once for a module (as Django's setUpTestData); each test runs in a savepoint inside its
    transaction (pytest-django's `db`) and is rolled back to it. A module that uses it has only such tests: a
    test without `db` or with `transactional_db` would see the world, or flush it."""
    holder = ModuleWorld(django_db_blocker)
    holder.build()
    request.module.module_world = holder
    yield holder
    del request.module.module_world
    holder.drop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the test's own savepoint opens: an old world is built anew (WORLD_MAX_AGE)."""
    holder = getattr(item.module, "module_world", None)
    if holder is not None and "world_built_once" in item.fixturenames:
        holder.renew_if_old()


@pytest.fixture
def world_once(world_built_once, db) -> World:
    """The module's world for one test: its rows as built (the test's savepoint is rolled back after it), its
    objects copied (a test that changes one in memory changes only its own copy) and its photo files there."""
    built = world_built_once.world
    storage = photo_storage()
    for dip in (built.member_photo_dip, built.other_photo_dip):
        for name, size in ((dip.photo.name, PHOTO_SIZES["full"]), (dip.thumbnail.name, PHOTO_SIZES["thumbnail"])):
            if not storage.exists(name):
                assert storage.save(name, ContentFile(image_bytes(size=size))) == name
    return copy.deepcopy(built)


def build_world() -> World:
    member = UserFactory(full_name="Marit Zwemmer", email="marit@example.nl", newsletter_consent=True)
    other = UserFactory(full_name="Otto Ander", email="otto@example.nl")
    admin = AdminFactory(full_name="Anna Admin", email="anna@example.nl")
    bare_admin = AdminFactory(full_name="Bas Rolhouder", email="bas@example.nl", second_factor=False)
    organiser = OrganiserFactory(full_name="Olga Organisator", email="olga@example.nl")
    challenge = ChallengeFactory(name="Tien Plonsen", target_dips=10)
    badge = BadgeFactory(challenge=challenge, milestone_dips=1, name="Eerste Plons")
    member_card = UserChallengeFactory(user=member, challenge=challenge)
    other_card = UserChallengeFactory(user=other, challenge=challenge)
    full, thumb = save_photo(member, "marit-1")
    member_photo_dip = DipFactory(user_challenge=member_card, number=1, photo=full, thumbnail=thumb)
    member_plain_dip = DipFactory(user_challenge=member_card, number=2)
    full, thumb = save_photo(other, "otto-1")
    other_photo_dip = DipFactory(user_challenge=other_card, number=1, photo=full, thumbnail=thumb)
    user_badge = UserBadgeFactory(user_challenge=member_card, badge=badge)
    # The member shares dips with the club, and this dip's photo: the club feed's photo address serves it.
    ClubSharingFactory(user=member, share_dips=True)
    Dip.objects.filter(pk=member_photo_dip.pk).update(share_photo=True)
    event = EventFactory(title="Nieuwjaarsduik")
    participation = EventParticipantFactory(event=EventFactory(title="Volle maan duik"), user=other)
    invitation = InvitationFactory(code="WELKOM22", email="nieuw@example.nl", invited_by=admin)
    group = Group.objects.create(name="Vrijwilligers")
    email_address = EmailAddress.objects.create(user=member, email=member.email, primary=True, verified=True)
    CalendarFeed.objects.create(user=member, token="marit-agenda-token-voor-de-matrix")
    EventWaitlistEntry.objects.create(event=EventFactory(title="Wachtlijstduik", max_participants=1), user=other)
    PostalAddressFactory(user=other)  # someone else's address, which no request of the member may touch
    # The other member takes part in a club goal (the member's join and leave must never touch it).
    goal = ClubChallengeFactory(name="Samen 500", kind=ClubChallenge.Kind.CLUB_GOAL, target=500)
    ClubChallengeEntryFactory(user=other, club_challenge=goal)
    # A weekly series and a sign-off at a past swim (shown in the Django admin, made on /admin/events).
    EventSeriesFactory()
    AttendanceFactory(user=other, signed_off_by=admin)
    # In the Django admin too (seen, never made there): another series the admin comes to every week, and a date
    # the other member skips.
    EventSeriesMember.objects.create(series=EventSeriesFactory(), user=admin)
    EventSeriesSkip.objects.create(event=EventFactory(title="Overgeslagen duik"), user=other)
    meetup = MeetupFactory(proposer=other, place="Sloterplas")
    buddy_tag = DipBuddy.objects.create(dip=other_photo_dip, buddy=member)
    reply = Reply.objects.create(author=other, meetup=meetup, text="Ik neem thee mee")
    return World(
        member=member,
        other_member=other,
        admin=admin,
        bare_admin=bare_admin,
        organiser=organiser,
        challenge=challenge,
        badge=badge,
        member_card=member_card,
        other_card=other_card,
        member_photo_dip=member_photo_dip,
        member_plain_dip=member_plain_dip,
        other_photo_dip=other_photo_dip,
        user_badge=user_badge,
        event=event,
        participation=participation,
        invitation=invitation,
        group=group,
        email_address=email_address,
        club_challenge=ClubChallengeFactory(name="Dip a Day December"),  # running, nobody joined yet
        meetup=meetup,
        buddy_tag=buddy_tag,
        reply=reply,
    )
