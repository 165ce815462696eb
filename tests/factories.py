"""factory-boy factories for every model."""

import datetime
import time

import factory
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, hotp_value
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.attendance.models import Attendance
from apps.challenges.models import (
    Badge,
    Challenge,
    ClubChallenge,
    ClubChallengeEntry,
    Dip,
    DipBuddy,
    UserBadge,
    UserChallenge,
)
from apps.challenges.services.recount import user_dip_count_refresh
from apps.club.models import Brrr, ClubSharing, HiddenItem
from apps.events.models import Event, EventGuest, EventParticipant, EventSeries, EventWaitlistEntry
from apps.invitations.models import Invitation
from apps.shipping.models import PostalAddress
from apps.together.models import Meetup, MeetupParticipant

DEFAULT_PASSWORD = "ijskoud-water"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"zwemmer{n}@example.nl")
    full_name = factory.Faker("name", locale="nl_NL")
    newsletter_consent = False
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def save_password(obj, create, extracted, **kwargs):
        if create:
            obj.save(update_fields=["password"])


class AdminFactory(UserFactory):
    """An admin with the second factor the role requires (an authenticator app); `second_factor=False`: without."""

    @factory.post_generation
    def admin_role(obj, create, extracted, **kwargs):
        if create:
            UserRole.objects.create(user=obj, role=UserRole.Role.ADMIN)

    @factory.post_generation
    def second_factor(obj, create, extracted, **kwargs):
        if create and extracted is not False:
            TOTP.activate(obj, TOTP_SECRET)


class OrganiserFactory(UserFactory):
    """An organiser ("Organisator") with the second factor the role requires; `second_factor=False`: without."""

    @factory.post_generation
    def organiser_role(obj, create, extracted, **kwargs):
        if create:
            UserRole.objects.create(user=obj, role=UserRole.Role.ORGANISER)

    @factory.post_generation
    def second_factor(obj, create, extracted, **kwargs):
        if create and extracted is not False:
            TOTP.activate(obj, TOTP_SECRET)


# The authenticator app secret of every factory admin; `totp_code()` is what the app would show now.
TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def totp_code() -> str:
    counter = int(time.time()) // 30
    return format_hotp_value(hotp_value(TOTP_SECRET, counter))


class UserRoleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserRole

    user = factory.SubFactory(UserFactory)
    role = UserRole.Role.ADMIN


class InvitationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Invitation

    code = factory.Sequence(lambda n: f"CODE{n:04d}"[-8:].rjust(8, "X"))
    email = None
    invited_by = None
    created_at = factory.LazyFunction(timezone.now)
    expires_at = factory.LazyAttribute(lambda o: o.created_at + datetime.timedelta(days=30))


class ChallengeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Challenge

    name = factory.Sequence(lambda n: f"Challenge {n}")
    description = "Een koude uitdaging."
    category = Challenge.Category.SPECIAL
    target_dips = 10
    badge_image_url = "badges/kikker.svg"
    is_active = True


class BadgeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Badge

    challenge = factory.SubFactory(ChallengeFactory)
    name = factory.Sequence(lambda n: f"Badge {n}")
    description = "Verdiend met koud water."
    image_url = "badges/kikker.svg"
    milestone_dips = factory.Sequence(lambda n: n + 1)


class UserChallengeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserChallenge

    user = factory.SubFactory(UserFactory)
    challenge = factory.SubFactory(ChallengeFactory)
    challenge_type = factory.LazyAttribute(lambda o: o.challenge.category)
    is_active = True


def _next_number_on(card, n: int) -> int:
    """The card's next number, as dip_register gives it: a number from a sequence shared by every test in the
    process would depend on the tests that ran before and could land on one a test writes itself."""
    if card is None or card.pk is None:
        return n + 1
    return (Dip.objects.filter(user_challenge=card).aggregate(last=Max("number"))["last"] or 0) + 1


class DipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Dip

    user_challenge = factory.SubFactory(UserChallengeFactory)
    user = factory.LazyAttribute(lambda o: o.user_challenge.user)
    number = factory.LazyAttributeSequence(lambda o, n: _next_number_on(o.user_challenge, n))
    dip_date = factory.LazyFunction(lambda: timezone.localdate())

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Written past dip_register, so the member's counter is kept here as the dip services keep it.
        dip = super()._create(model_class, *args, **kwargs)
        with transaction.atomic():  # the service locks the member's row: only inside a transaction
            user_dip_count_refresh(user_id=dip.user_id)
        dip.user.refresh_from_db(fields=["dip_count"])
        return dip


class UserBadgeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserBadge

    user_challenge = factory.SubFactory(UserChallengeFactory)
    user = factory.LazyAttribute(lambda o: o.user_challenge.user)
    badge = factory.SubFactory(BadgeFactory, challenge=factory.SelfAttribute("..user_challenge.challenge"))


class ClubChallengeFactory(factory.django.DjangoModelFactory):
    """A dated club challenge running from today for ten days; `target` follows the kind."""

    class Meta:
        model = ClubChallenge

    name = factory.Sequence(lambda n: f"Clubchallenge {n}")
    description = "Samen het koude water in."
    starts_on = factory.LazyFunction(timezone.localdate)
    ends_on = factory.LazyAttribute(lambda o: o.starts_on + datetime.timedelta(days=9))
    kind = ClubChallenge.Kind.DAYS
    target = factory.LazyAttribute(
        lambda o: None if o.kind == ClubChallenge.Kind.EVERY_DAY else (5 if o.kind == ClubChallenge.Kind.DAYS else 50)
    )


class ClubChallengeEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubChallengeEntry

    user = factory.SubFactory(UserFactory)
    club_challenge = factory.SubFactory(ClubChallengeFactory)


class PostalAddressFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PostalAddress

    user = factory.SubFactory(UserFactory)
    street = "Strandweg 1"
    postcode = "2042 AB"
    city = "Zandvoort"


class EventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Event

    title = factory.Sequence(lambda n: f"Nieuwjaarsduik {n}")
    event_date = factory.LazyFunction(lambda: timezone.now() + datetime.timedelta(days=7))
    location = "Strand Zandvoort"
    description = "Samen het koude water in."
    max_participants = None
    is_active = True


class MeetupFactory(factory.django.DjangoModelFactory):
    """A plonsafspraak, with its proposer going along (as meetup_propose makes it)."""

    class Meta:
        model = Meetup

    proposer = factory.SubFactory(UserFactory)
    starts_at = factory.LazyFunction(lambda: timezone.now() + datetime.timedelta(days=1))
    place = "Sloterplas"
    note = ""

    @factory.post_generation
    def proposer_goes(self, create, extracted, **kwargs):
        if create:
            MeetupParticipant.objects.get_or_create(meetup=self, user=self.proposer)


class MeetupParticipantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MeetupParticipant

    meetup = factory.SubFactory(MeetupFactory)
    user = factory.SubFactory(UserFactory)


class EventParticipantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EventParticipant

    event = factory.SubFactory(EventFactory)
    user = factory.SubFactory(UserFactory)


class PushSubscriptionFactory(factory.django.DjangoModelFactory):
    """A browser's subscription; its keys are well-formed but nobody holds the private key (use the
    push_receiver fixture for one that can receive)."""

    class Meta:
        model = "notifications.PushSubscription"

    user = factory.SubFactory(UserFactory)
    endpoint = factory.Sequence(lambda n: f"https://push.example.com/send/{n}")
    p256dh = "BAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"
    auth = "AAAAAAAAAAAAAAAAAAAAAA"
    device_label = "Android (Chrome)"


class NoticePreferenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "notifications.NoticePreference"

    user = factory.SubFactory(UserFactory)
    kind = "club_message"
    channel = "push"


class NoticeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "notifications.Notice"

    user = factory.SubFactory(UserFactory)
    kind = "club_message"
    title = "Clubbericht: Zondag"
    body = "Om 10:00 bij de pier"


class ClubMessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "notifications.ClubMessage"

    title = "Zondag samen zwemmen"
    body = "Om 10:00 bij de pier. Neem een muts mee!"


class EventSeriesFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EventSeries

    repeat_until = factory.LazyFunction(lambda: timezone.localdate() + datetime.timedelta(weeks=4))


class EventWaitlistEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EventWaitlistEntry

    event = factory.SubFactory(EventFactory)
    user = factory.SubFactory(UserFactory)


class AttendanceFactory(factory.django.DjangoModelFactory):
    """A sign-off written past attendance_save (no dip): for lists, exports and deletion."""

    class Meta:
        model = Attendance

    event = factory.SubFactory(EventFactory, event_date=factory.LazyFunction(timezone.now))
    user = factory.SubFactory(UserFactory)
    signed_off_by = factory.SubFactory(UserFactory)
    event = factory.SubFactory(EventFactory, max_participants=1)
    user = factory.SubFactory(UserFactory)


class EventGuestFactory(factory.django.DjangoModelFactory):
    """A guest who signed up through the event's public link (the event is open for guests)."""

    class Meta:
        model = EventGuest

    event = factory.SubFactory(EventFactory, open_for_guests=True)
    name = factory.Sequence(lambda n: f"Gast {n}")
    email = factory.Sequence(lambda n: f"gast{n}@example.nl")
    safety_agreed_at = factory.LazyFunction(timezone.now)


class ClubSharingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClubSharing

    user = factory.SubFactory(UserFactory)
    share_dips = True


class BrrrFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Brrr

    user = factory.SubFactory(UserFactory)
    kind = "dip"
    object_id = factory.Sequence(lambda n: n + 1)
    owner = None


class HiddenItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HiddenItem

    kind = "dip"
    object_id = factory.Sequence(lambda n: n + 1)
    hidden_by = None


class DipBuddyFactory(factory.django.DjangoModelFactory):
    """A clubmate named on a dip, not yet answered."""

    class Meta:
        model = DipBuddy

    dip = factory.SubFactory(DipFactory)
    buddy = factory.SubFactory(UserFactory)
