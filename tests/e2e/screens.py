"""Every page of the app, member and admin, with the data that makes it look like real use.

The screen walk (test_screens.py) opens each screen listed here at phone and laptop widths and measures its
tap targets.
A new page: add one function with `@screen("name")` that creates its data and returns
`Visit(path, user)`. `user` is None for an anonymous visitor; the function runs inside the test, with
the live server's database.
"""

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Challenge, ClubChallenge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.events.models import Event
from tests.challenges.photo_samples import image_bytes
from tests.factories import (
    AdminFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    ClubMessageFactory,
    EventFactory,
    EventGuestFactory,
    EventParticipantFactory,
    EventWaitlistEntryFactory,
    MeetupFactory,
    NoticePreferenceFactory,
    PostalAddressFactory,
    PushSubscriptionFactory,
    UserFactory,
)


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


@screen("account-notices")
def account_notices() -> Visit:
    """Meldingen with two devices (one with a long name) and a few choices made."""
    member = UserFactory()
    PushSubscriptionFactory(user=member, device_label="Android (Chrome)")
    PushSubscriptionFactory(user=member, device_label="Computer (Firefox) van de zwemvereniging Noordwijkerhout")
    NoticePreferenceFactory(user=member, kind="reaction", channel="off")
    return Visit("/account#meldingen", member)


@screen("dashboard-club-messages")
def dashboard_club_messages() -> Visit:
    ClubMessageFactory(
        title="Zondag samen zwemmen bij de Noordwijkerhoutsestrandopgang",
        body="Om 10:00 bij de pier.\nNeem een muts mee!",
    )
    ClubMessageFactory(title="Nieuwjaarsduik", body="Aanmelden kan via Events." * 8)
    return Visit("/dashboard#clubberichten", UserFactory())


@screen("admin-club-message")
def admin_club_message() -> Visit:
    ClubMessageFactory()
    for _ in range(3):
        PushSubscriptionFactory()
    return Visit("/admin/clubbericht/", AdminFactory(full_name="Anna Admin"))


@screen("privacy")
def privacy_page() -> Visit:
    return Visit("/privacy")


@screen("admin-audit-log")
def admin_audit_log() -> Visit:
    """The audit log with long addresses, an IPv6 address and every kind of action."""
    from apps.audit.actions import AuditAction
    from apps.audit.services import AuditMeta, audit_record

    admin = AdminFactory(full_name="Anna Admin", email="anna.van.der.waterhoen-zwaluwenstaart@koudwaterclub.example.nl")
    meta = AuditMeta(actor_id=admin.pk, actor_label=admin.email, ip="2001:db8:85a3:0:0:8a2e:370:7334")
    for action in AuditAction:
        audit_record(meta=meta, action=action, target_type="user", target_id=123456, detail="12 rijen")
    return Visit("/admin/logboek/", admin)


@screen("organiser-home")
def organiser_home() -> Visit:
    """/admin for an organiser: exactly her screens (events, the club message), no admin cards."""
    from tests.factories import OrganiserFactory

    return Visit("/admin", OrganiserFactory(full_name="Olga Organisator van de Zondagochtendduik"))


@screen("organiser-events")
def organiser_events() -> Visit:
    """An organiser on the events list: "← Organiseren" back to her screens, "Organiseren" in the header."""
    from tests.factories import OrganiserFactory

    EventFactory(title="Zondagochtendduik bij de Noordwijkerhoutsestrandopgang")
    return Visit("/admin/events/", OrganiserFactory(full_name="Olga Organisator"))


def club_challenges_running(member: User) -> None:
    """A day challenge the member joined, a club goal with others, one still to come; one completed earlier."""
    today = timezone.localdate()
    december = ClubChallengeFactory(
        name="Dip a Day December: elke dag het water in, ook als het stormt",
        kind=ClubChallenge.Kind.DAYS,
        target=20,
        starts_on=today - datetime.timedelta(days=3),
        ends_on=today + datetime.timedelta(days=27),
    )
    goal = ClubChallengeFactory(name="Samen naar 1000", kind=ClubChallenge.Kind.CLUB_GOAL, target=1000)
    ClubChallengeFactory(
        name="Nieuwjaarsweek", kind=ClubChallenge.Kind.EVERY_DAY, starts_on=today + datetime.timedelta(days=30)
    )
    for challenge in (december, goal):
        ClubChallengeEntryFactory(user=member, club_challenge=challenge)
    for entry in ClubChallengeEntryFactory.create_batch(4, club_challenge=goal):
        dip_register(user=entry.user)
    done = ClubChallengeFactory(name="Eerste vorst", kind=ClubChallenge.Kind.DAYS, target=1, starts_on=today)
    ClubChallengeEntryFactory(user=member, club_challenge=done)
    dip_register(user=member)


@screen("dashboard-club-challenges")
def dashboard_club_challenges() -> Visit:
    """A member without a stamp card who takes part in club challenges: "Plons registreren" on the dashboard."""
    member = UserFactory(full_name="Wieke Waterhoen-Van der Zwaluwenstaart")
    club_challenges_running(member)
    return Visit("/dashboard", member)


@screen("admin-club-challenges")
def admin_club_challenges() -> Visit:
    club_challenges_running(UserFactory())
    return Visit("/admin/clubchallenges", AdminFactory(full_name="Anna Admin"))


def _club_swim(*, started: bool) -> Event:
    """A weekly swim with a long place name, 30 members by name (one with a very long one), a waitlist, and (open
    for guests) two guests, one with a very long name and address."""
    from apps.events.models import EventSeries

    series = EventSeries.objects.create(repeat_until=timezone.localdate() + datetime.timedelta(weeks=8))
    start = timezone.now() + (datetime.timedelta(hours=-1) if started else datetime.timedelta(days=2))
    event = EventFactory(
        title="Zondagduik bij het strandpaviljoen",
        location="Strandpaviljoen De Zeemeeuw, Noordelijke Boulevard 112, Scheveningen",
        max_participants=30,
        event_date=start,
        series=series,
        open_for_guests=True,
    )
    EventGuestFactory(
        event=event,
        name="Gijsbertus van den Hoogenband-Oosterwijk",
        email="gijsbertus.vandenhoogenband-oosterwijk@voorbeeld-zwemvereniging.nl",
    )
    EventGuestFactory(event=event, name="Greet Gast")
    names = ["Wieke Waterhoen-Van der Zwaluwenstaart", *(f"Zwemmer {n}" for n in range(29))]
    for name in names:
        EventParticipantFactory(event=event, user=UserFactory(full_name=name))
    EventWaitlistEntryFactory(event=event, user=UserFactory(full_name="Wachtende Walvis"))
    return event


@screen("admin-events")
def admin_events() -> Visit:
    _club_swim(started=False)
    return Visit("/admin/events/", AdminFactory(full_name="Anna Admin"))


@screen("admin-event-new")
def admin_event_new() -> Visit:
    return Visit("/admin/events/nieuw", AdminFactory(full_name="Anna Admin"))


@screen("admin-event-attendance")
def admin_event_attendance() -> Visit:
    event = _club_swim(started=True)
    return Visit(f"/admin/events/{event.pk}", AdminFactory(full_name="Anna Admin"))


@screen("admin-event-edit")
def admin_event_edit() -> Visit:
    event = _club_swim(started=False)
    return Visit(f"/admin/events/{event.pk}/bewerken", AdminFactory(full_name="Anna Admin"))


@screen("event-who-goes")
def event_who_goes() -> Visit:
    event = _club_swim(started=False)
    return Visit(f"/events/{event.pk}", UserFactory())


@screen("events-with-names")
def events_with_names() -> Visit:
    _club_swim(started=False)
    return Visit("/samen", UserFactory())  # the plan list (/events leads there)


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
    return Visit("/samen", member)


@screen("events-waitlist-offer")
def events_waitlist_offer() -> Visit:
    """A freed place offered to the member: the deadline, Ik kom and Ik kan niet."""
    from apps.events.services import event_leave, event_sign_up

    member, leaving = UserFactory(), UserFactory()
    event = EventFactory(title="Zonsopgangduik in de IJhaven met warme chocolademelk", max_participants=1)
    event_sign_up(user=leaving, event_id=event.pk)
    event_sign_up(user=member, event_id=event.pk)
    event_leave(user=leaving, event_id=event.pk)
    return Visit("/samen", member)


@screen("guest-sign-up")
def guest_sign_up_screen() -> Visit:
    event = EventFactory(
        title="Nieuwjaarsduik van Scheveningen voor het hele dorp", max_participants=400, open_for_guests=True
    )
    return Visit(f"/events/gast/{event.guest_token}")


@screen("guest-sign-up-errors")
def guest_sign_up_errors_screen() -> Visit:
    # The errors themselves need a POST; the page with a long description and a full event is the widest state.
    event = EventFactory(
        title="Nieuwjaarsduik",
        description="Verzamelen bij de pier om 11:30. Neem een handdoek, warme sokken en een muts mee. " * 4,
        max_participants=1,
        open_for_guests=True,
    )
    EventParticipantFactory(event=event)
    return Visit(f"/events/gast/{event.guest_token}")


@screen("guest-cancel")
def guest_cancel_screen() -> Visit:
    from apps.events.notices import guest_cancel_token

    guest = EventGuestFactory(name="Gijsbertus van den Hoogenband-Oosterwijk")
    return Visit(f"/events/gast/afmelden/{guest_cancel_token(guest)}")


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


def _club_with_items(viewer: User) -> None:
    """A club feed as it looks in use: shared dips (a long name and spot, a photo), a badge, an event, Brrr!s."""
    from apps.club.services import brrr_set, club_sharing_set

    sharer = member_with_card(dips=5, photo_every=2)
    club_sharing_set(user=sharer, share_dips=True)
    latest = sharer.dips.order_by("-created_at").first()
    photo_dip = sharer.dips.exclude(photo="").order_by("-created_at").first()
    photo_dip.share_photo = True
    photo_dip.save(update_fields=["share_photo"])
    latest.spot = "Het Zwemstrand aan de Zuidelijke Oever van de Sloterplas-Westzijde"
    latest.water_temperature = 4.5
    latest.save(update_fields=["spot", "water_temperature"])
    EventFactory(title="Nieuwjaarsduik in de Noordzee bij het Strandpaviljoen De Zeemeeuw")
    for fan in (viewer, UserFactory(full_name="Bartholomeus van den Hoogenband-IJsselstein")):
        brrr_set(user=fan, kind="dip", object_id=latest.pk, given=True)
    # The later kinds: a plonsafspraak, a club message, a completed club challenge; and the club challenges.
    MeetupFactory(
        proposer=UserFactory(full_name="Clubgenoot Met Een Lange Achternaam-Verhoeven"),
        place="Sloterplas, steiger bij het strandje achter de speeltuin",
    )
    ClubMessageFactory(
        title="Zondag samen zwemmen bij de Noorderpier van IJmuiden",
        body="Om 10:00 bij de pier.\nNeem een muts, sokken en een thermoskan thee mee: het water is 5 graden!",
    )
    ClubChallengeEntryFactory(
        user=sharer,
        club_challenge=ClubChallengeFactory(name="Decemberduik: elke dag het water in tot de kerst"),
        completed_at=timezone.now(),
    )
    club_challenges_running(viewer)


@screen("club-feed")
def club_feed() -> Visit:
    admin = AdminFactory(full_name="Anna Admin")  # with the admin's "Verbergen" buttons
    _club_with_items(admin)
    return Visit("/club", admin)


@screen("club-first-visit")
def club_first_visit() -> Visit:
    return Visit("/club", UserFactory())


@screen("dashboard-badge-to-share")
def dashboard_badge_to_share() -> Visit:
    return Visit("/dashboard", member_with_card(dips=5))


def _club_meetups(viewer: User) -> None:
    """Plonsafspraken of the club with long names and places, one the viewer proposed, one they join."""
    from apps.together.services import meetup_join, meetup_propose

    soon = timezone.now() + datetime.timedelta(hours=20)
    others = [UserFactory(full_name=f"Clubgenoot Met Een Lange Achternaam-{n}") for n in range(4)]
    first = meetup_propose(
        user=others[0],
        starts_at=soon,
        place="Sloterplas, steiger bij het strandje achter de speeltuin",
        note="Ik neem thee mee. Tow float en felle muts graag!",
    )
    for other in others[1:]:
        meetup_join(user=other, meetup_id=first.pk)
    meetup_join(user=viewer, meetup_id=first.pk)
    meetup_propose(user=viewer, starts_at=soon + datetime.timedelta(days=2), place="IJ-haven")
    meetup_propose(user=others[1], starts_at=soon + datetime.timedelta(days=5), place="Zandvoort, paal 70")


@screen("samen")
def samen() -> Visit:
    member = member_with_card(dips=2)
    _club_meetups(member)
    return Visit("/samen", member)


def _plans_series(member: User) -> None:
    """A weekly series of five dates the member goes to the first of, the second afgelast with a long reason."""
    from apps.events.models import EventSeries
    from apps.events.services import event_cancel, event_sign_up

    series = EventSeries.objects.create(repeat_until=timezone.localdate() + datetime.timedelta(weeks=5))
    dates = [
        EventFactory(
            title="Zondagochtendduik bij de Noorderpier van IJmuiden aan Zee",
            location="Noorderpier, IJmuiden (parkeren bij het strandpaviljoen)",
            event_date=timezone.now() + datetime.timedelta(days=1 + 7 * week, hours=2),
            max_participants=12,
            series=series,
        )
        for week in range(5)
    ]
    event_sign_up(user=member, event_id=dates[0].pk)
    event_cancel(event_id=dates[1].pk, reason="Storm op zee: code oranje van het KNMI, de pier is afgesloten")


@screen("samen-plans")
def samen_plans() -> Visit:
    """The one list of plans: a weekly series folded (its dates opened, one afgelast), a full event with the
    member on its waitlist, an afgelast event, and the club's plonsafspraken."""
    from apps.events.services import event_cancel, event_sign_up

    member = member_with_card(dips=2)
    _club_meetups(member)
    _plans_series(member)
    full = EventFactory(title="Zonsopgangduik in de IJhaven met warme chocolademelk", max_participants=1)
    event_sign_up(user=UserFactory(full_name="Wieke Waterhoen-Van der Zwaluwenstaart"), event_id=full.pk)
    event_sign_up(user=member, event_id=full.pk)
    event_cancel(event_id=EventFactory(title="Maanlichtduik").pk, reason="Te veel wind")
    return Visit("/samen", member)


@screen("dashboard-buddy-request")
def dashboard_buddy_request() -> Visit:
    """A clubmate named the member on a dip: 'Zet op mijn kaart' and 'Klopt niet', and the afspraken."""
    member = member_with_card(dips=1)
    tagger = UserFactory(full_name="Otto Ander-Van Langeveld Tot Waterland")
    challenge_start(user=tagger, challenge_id=Challenge.objects.get(category=Challenge.Category.WATERDIEREN).pk)
    dip_register(user=tagger, buddy_ids=[member.pk])
    _club_meetups(member)
    return Visit("/dashboard", member)


@screen("veilig")
def veilig() -> Visit:
    return Visit("/veilig", UserFactory())


def _weekly_series(*, member: User | None = None) -> list[Event]:
    """A 13-date Sunday series (issue 34 §3): the second date afgelast with its reason; `member` comes every week."""
    from apps.events.services import EventDetails, event_cancel, event_series_create, series_join

    start = timezone.now() + datetime.timedelta(days=2)
    details = EventDetails(
        title="Zondagduik bij het Strandpaviljoen",
        starts_at=start,
        location="Strandpaviljoen 12, Scheveningen",
        max_participants=12,
    )
    dates = event_series_create(details=details, repeat_until=timezone.localdate(start) + datetime.timedelta(weeks=12))
    event_cancel(event_id=dates[1].pk, reason="Storm op zee: windkracht 8 verwacht, we slaan deze week over.")
    if member is not None:
        series_join(user=member, series_id=dates[0].series_id)
    return dates


@screen("event-series-date")
def event_series_date() -> Visit:
    member = UserFactory(full_name="Marit Zwemmer")
    dates = _weekly_series(member=member)
    return Visit(f"/events/{dates[2].pk}", member)


@screen("event-series-date-not-member")
def event_series_date_not_member() -> Visit:
    dates = _weekly_series()
    return Visit(f"/events/{dates[0].pk}", UserFactory())


@screen("event-cancelled-date")
def event_cancelled_date() -> Visit:
    dates = _weekly_series(member=UserFactory())
    return Visit(f"/events/{dates[1].pk}", UserFactory())


@screen("events-cancelled-date")
def events_cancelled_date() -> Visit:
    _weekly_series()
    return Visit("/events", UserFactory())


@screen("admin-events-series")
def admin_events_series() -> Visit:
    _weekly_series(member=UserFactory())
    EventFactory(title="Nieuwjaarsduik")
    return Visit("/admin/events/", AdminFactory(full_name="Anna Admin"))


def shore_swim() -> Event:
    """A club swim of today that started a while ago: members with a card, a guest of the link, two in the water (one
    past the club's limit), one out. Long names, as at a real swim."""
    from apps.attendance.shore import shore_tap

    now = timezone.localtime()
    start = max(now - datetime.timedelta(minutes=40), now.replace(hour=0, minute=0, second=0, microsecond=0))
    event = EventFactory(
        title="Zondagochtendduik bij de Noordwijkerhoutsestrandopgang", event_date=start, open_for_guests=True
    )
    organiser = AdminFactory(full_name="Olga Organisator")
    for name in ("Anna de Vries", "Bram Buddy", "Carla Koudwater-Van den Heuvelenberg", "Daan Dapper"):
        member = UserFactory(full_name=name)
        EventParticipantFactory(event=event, user=member)
    EventGuestFactory(event=event, name="Gijs Gast")
    members = {user.full_name: user for user in User.objects.filter(event_participations__event=event)}
    taps = [("Anna de Vries", "in", 20), ("Bram Buddy", "in", 12), ("Daan Dapper", "in", 15), ("Daan Dapper", "uit", 5)]
    for name, kind, minutes_ago in taps:
        moment = max(now - datetime.timedelta(minutes=minutes_ago), start)
        shore_tap(
            event_id=event.pk, organiser=organiser, swimmer=f"lid-{members[name].pk}", kind=kind, tapped_at=moment
        )
    return event


@screen("waterkant")
def waterkant() -> Visit:
    from tests.factories import OrganiserFactory

    event = shore_swim()
    return Visit(f"/events/{event.pk}/waterkant", OrganiserFactory(full_name="Otto Organisator"))
