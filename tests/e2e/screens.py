"""Every page of the app, member and admin, with the data that makes it look like real use.

The page-width test (test_page_widths.py) opens each screen listed here at phone and laptop widths.
A new page: add one function with `@screen("name")` that creates its data and returns
`Visit(path, user)`. `user` is None for an anonymous visitor; the function runs inside the test, with
the live server's database.
"""

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Challenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from tests.challenges.photo_samples import image_bytes
from tests.factories import AdminFactory, EventFactory, PostalAddressFactory, UserFactory


@dataclass(frozen=True)
class Visit:
    path: str
    user: User | None = None


SCREENS: dict[str, Callable[[], Visit]] = {}


def screen(name: str):
    def register(build: Callable[[], Visit]) -> Callable[[], Visit]:
        assert name not in SCREENS, f"two screens named {name!r}"
        SCREENS[name] = build
        return build

    return register


def member_with_card(*, dips: int = 0, photo_every: int = 0) -> User:
    """A member on the 100-dip card with `dips` dips, a photo on every `photo_every`-th one."""
    member = UserFactory(full_name="Wieke Waterhoen-Van der Zwaluwenstaart")
    challenge_start(user=member, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    start = timezone.now() - datetime.timedelta(days=dips + 1)
    for number in range(1, dips + 1):
        photo = None
        if photo_every and number % photo_every == 0:
            photo = ProcessedPhoto(
                full=image_bytes("JPEG", size=(640, 480)), thumbnail=image_bytes("JPEG", size=(320, 240))
            )
        dip_register(user=member, photo=photo, now=start + datetime.timedelta(days=number))
    return member


@screen("landing")
def landing() -> Visit:
    return Visit("/")


@screen("landing-signed-in")
def landing_signed_in() -> Visit:
    return Visit("/", UserFactory())


@screen("auth")
def auth() -> Visit:
    return Visit("/auth")


@screen("auth-sign-up")
def auth_sign_up() -> Visit:
    return Visit("/auth?tab=registreren")


@screen("not-found")
def not_found() -> Visit:
    return Visit("/nergens/te/vinden")


@screen("dashboard-new-member")
def dashboard_new_member() -> Visit:
    EventFactory(title="Nieuwjaarsduik bij de pier van Scheveningen", max_participants=50)
    return Visit("/dashboard", UserFactory())


@screen("dashboard-with-card")
def dashboard_with_card() -> Visit:
    EventFactory(title="Volle maan plons", max_participants=12)
    return Visit("/dashboard", member_with_card(dips=7))


@screen("challenge-new-card")
def challenge_new_card() -> Visit:
    return Visit("/challenge", member_with_card())


@screen("challenge-dips-and-photos")
def challenge_dips_and_photos() -> Visit:
    return Visit("/challenge", member_with_card(dips=26, photo_every=3))


@screen("account")
def account() -> Visit:
    return Visit("/account", UserFactory())


@screen("admin")
def admin() -> Visit:
    member_with_card(dips=6, photo_every=2)
    return Visit("/admin", AdminFactory(full_name="Anna Admin"))


@screen("admin-physical-badges")
def admin_physical_badges() -> Visit:
    """Three badges to post, one member with a long name and an address, one without."""
    member_with_card(dips=26)
    PostalAddressFactory(user=member_with_card(dips=5))
    return Visit("/admin/fysieke-badges/", AdminFactory(full_name="Anna Admin"))


@screen("dashboard-admin")
def dashboard_admin() -> Visit:
    return Visit("/dashboard", AdminFactory())


@screen("password-reset")
def password_reset() -> Visit:
    return Visit("/auth/wachtwoord-vergeten")


@screen("password-reset-sent")
def password_reset_sent() -> Visit:
    return Visit("/auth/wachtwoord-vergeten/verstuurd")


@screen("password-reset-from-key")
def password_reset_from_key() -> Visit:
    from allauth.account.forms import default_token_generator
    from allauth.account.utils import user_pk_to_url_str

    member = UserFactory()
    key = default_token_generator.make_token(member)
    return Visit(f"/auth/wachtwoord-herstellen/{user_pk_to_url_str(member)}-{key}")


@screen("password-reset-bad-key")
def password_reset_bad_key() -> Visit:
    return Visit("/auth/wachtwoord-herstellen/1-onzin-sleutel")


@screen("password-reset-done")
def password_reset_done() -> Visit:
    return Visit("/auth/wachtwoord-hersteld")


@screen("django-admin")
def django_admin() -> Visit:
    return Visit("/django-admin/", AdminFactory())


@screen("django-admin-users")
def django_admin_users() -> Visit:
    """The users' changelist: a long address, the filters, the actions bar."""
    member_with_card(dips=3)
    UserFactory(email="wieke.waterhoen-van.der.zwaluwenstaart@voorbeeld-zwemvereniging.nl")
    return Visit("/django-admin/accounts/user/", AdminFactory())


@screen("django-admin-events")
def django_admin_events() -> Visit:
    """The events' changelist: the date drill-down above the table and the period filter."""
    EventFactory(title="Zonsopgangduik in de IJhaven met warme chocolademelk", max_participants=12)
    EventFactory(title="Nieuwjaarsduik")
    return Visit("/django-admin/events/event/", AdminFactory())


@screen("django-admin-challenges")
def django_admin_challenges() -> Visit:
    return Visit("/django-admin/challenges/challenge/", AdminFactory())


@screen("django-admin-challenge-add")
def django_admin_challenge_add() -> Visit:
    return Visit("/django-admin/challenges/challenge/add/", AdminFactory())


@screen("django-admin-challenge-change")
def django_admin_challenge_change() -> Visit:
    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)  # six badges
    return Visit(f"/django-admin/challenges/challenge/{challenge.pk}/change/", AdminFactory())


@screen("django-admin-event-add")
def django_admin_event_add() -> Visit:
    return Visit("/django-admin/events/event/add/", AdminFactory())


@screen("django-admin-event-change")
def django_admin_event_change() -> Visit:
    return Visit(f"/django-admin/events/event/{EventFactory().pk}/change/", AdminFactory())


@screen("django-admin-event-delete")
def django_admin_event_delete() -> Visit:
    """The delete page: the list of what goes with it, and its two buttons."""
    return Visit(f"/django-admin/events/event/{EventFactory().pk}/delete/", AdminFactory())


@screen("django-admin-participant-add")
def django_admin_participant_add() -> Visit:
    """A form with choices of other models: the '+', pencil and eye beside each."""
    return Visit("/django-admin/events/eventparticipant/add/", AdminFactory())


@screen("statistics-with-a-log")
def statistics_with_a_log() -> Visit:
    from decimal import Decimal

    from apps.challenges.conditions import DipConditions

    member = member_with_card()
    start = timezone.now() - datetime.timedelta(days=200)
    for number in range(1, 41):
        conditions = DipConditions(
            water_temperature=Decimal("14.5") - Decimal(number % 20) / 2,
            duration_seconds=90 + number,
            spot="Strand Scheveningen, bij de pier",
        )
        dip_register(user=member, conditions=conditions, now=start + datetime.timedelta(days=number * 5))
    return Visit("/statistieken", member)


@screen("statistics-empty")
def statistics_empty() -> Visit:
    return Visit("/statistieken", UserFactory())


@screen("account-admin-with-second-factor")
def account_admin() -> Visit:
    return Visit("/account", AdminFactory(full_name="Anna Admin-Van Oosterwijk"))


@screen("events-full-with-waitlist")
def events_with_waitlist() -> Visit:
    from apps.events.services import event_sign_up

    member = UserFactory()
    event = EventFactory(title="Zonsopgangduik in de IJhaven met warme chocolademelk", max_participants=1)
    event_sign_up(user=UserFactory(), event_id=event.pk)
    event_sign_up(user=member, event_id=event.pk)
    EventFactory(title="Nieuwjaarsduik")
    return Visit("/events", member)


@screen("sign-out-page")
def sign_out_page() -> Visit:
    return Visit("/uitloggen", UserFactory())


@screen("stop-confirmation-page")
def stop_confirmation_page() -> Visit:
    return Visit("/challenge/stoppen", member_with_card(dips=3))


@screen("offline-page")
def offline_page() -> Visit:
    return Visit("/offline")


@screen("bevestig-dat-jij-het-bent")
def reauthenticate_screen() -> Visit:
    return Visit("/auth/opnieuw/?next=/account/beveiliging/herstelcodes", UserFactory())


@screen("nieuw-e-mailadres-bevestigen")
def confirm_email_screen() -> Visit:
    from allauth.account.models import EmailConfirmationHMAC

    from apps.accounts.services import account_profile_update

    member = UserFactory()
    account_profile_update(
        user=member, full_name=member.full_name, email="nieuw-adres@example.nl", newsletter_consent=False
    )
    address = member.emailaddress_set.get(verified=False)
    return Visit(f"/account/e-mailadres-bevestigen/{EmailConfirmationHMAC(address).key}", member)
