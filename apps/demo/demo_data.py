"""Demo data for `make run`: `python manage.py seed_demo`."""

import datetime
import io
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from PIL import Image, ImageDraw

from apps.accounts.models import User
from apps.accounts.services import admin_grant
from apps.challenges.conditions import DipConditions
from apps.challenges.models import Challenge, PhysicalStatus, UserBadge
from apps.challenges.photos import ProcessedPhoto
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.club.services import club_sharing_set
from apps.events.models import Event
from apps.events.services import event_join, event_sign_up
from apps.invitations.links import invitation_url
from apps.invitations.models import Invitation
from apps.invitations.services import invitation_create
from apps.shipping.services import physical_badges_mark, postal_address_save

DEMO_ADMIN_EMAIL = "admin@koudwater.example"
DEMO_ADMIN_PASSWORD = "ijskoud-admin"  # noqa: S105 - demo data for `make run` only, printed on purpose
DEMO_MEMBER_EMAIL = "zwemmer@koudwater.example"
DEMO_MEMBER_PASSWORD = "ijskoud-zwemmer"  # noqa: S105 - demo data, printed on purpose
DEMO_DIPS = 12
DEMO_EVENTS = [
    (
        "Nieuwjaarsduik",
        40,
        "11:00",
        "Strand Scheveningen, bij de pier",
        "Samen het nieuwe jaar in: daarna erwtensoep.",
        50,
    ),
    (
        "Volle maan plons",
        12,
        "20:30",
        "Sloterplas, steiger noord",
        "Plonzen onder de volle maan. Neem een lampje mee.",
        12,
    ),
    ("Ochtenddip", 5, "07:30", "Amstel, bij de roeivereniging", "Kort en koud voor het werk.", None),
    # Full, with the demo member second on the waitlist: /events shows the waitlist at work.
    ("Zonsopgangduik", 3, "06:45", "IJhaven, bij de drijvende steiger", "Klein groepje, warme thee na.", 2),
]
DEMO_SPOTS = ["Strand Scheveningen", "Sloterplas", "IJhaven"]
WAITLIST_EVENT = "Zonsopgangduik"


@dataclass(frozen=True)
class DemoLogins:
    """What `seed_demo` prints: who to sign in as, and a link that signs a new member up."""

    admin_email: str
    admin_password: str
    member_email: str
    member_password: str
    invitation_link: str


@transaction.atomic
def demo_data_ensure() -> DemoLogins:
    """An admin, a member with a half-full stamp card, events and a valid invitation; safe to run again."""
    admin = User.objects.filter(email=DEMO_ADMIN_EMAIL).first()
    if admin is None:
        admin = User.objects.create_user(DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD, full_name="Demo Admin")
    admin_grant(user=admin)
    _member()
    _events()

    invitation = (
        Invitation.objects.filter(
            invited_by=admin, email__isnull=True, used_at__isnull=True, expires_at__gt=timezone.now()
        )
        .order_by("-created_at")
        .first()
    ) or invitation_create(invited_by=admin)
    return DemoLogins(
        admin_email=DEMO_ADMIN_EMAIL,
        admin_password=DEMO_ADMIN_PASSWORD,
        member_email=DEMO_MEMBER_EMAIL,
        member_password=DEMO_MEMBER_PASSWORD,
        invitation_link=invitation_url(invitation.code),
    )


def _member() -> None:
    if User.objects.filter(email=DEMO_MEMBER_EMAIL).exists():
        return
    member = User.objects.create_user(
        DEMO_MEMBER_EMAIL, DEMO_MEMBER_PASSWORD, full_name="Zoë Zwemmer", newsletter_consent=True
    )
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    challenge_start(user=member, challenge_id=waterdieren.pk)
    # Every other day, the last two days ago: the newcomer's own dip right after `make run` is a new one (a dip
    # within DIP_SAME_SWIM_HOURS of the last is the same swim, "Die plons stond al op je kaart").
    start = timezone.now() - datetime.timedelta(days=(DEMO_DIPS + 1) * 2)
    for number in range(1, DEMO_DIPS + 1):
        photo = _demo_photo(number) if number % 4 == 0 else None
        # A logbook that looks lived in: the water cools down over the weeks, most dips have details.
        conditions = (
            DipConditions(
                water_temperature=Decimal(14) - Decimal(number) / 2,
                duration_seconds=60 + number * 10,
                spot=DEMO_SPOTS[number % len(DEMO_SPOTS)],
            )
            if number % 3
            else None
        )
        dip_register(
            user=member,
            photo=photo,
            conditions=conditions,
            now=start + datetime.timedelta(days=number * 2),
            share_photo=photo is not None and number % 8 == 0,
        )
    # The demo member shares their dips with the club (and some photos): /club shows what that looks like.
    club_sharing_set(user=member, share_dips=True)
    postal_address_save(
        user=member, recipient="", street="Boulevard 12", postcode="2586 AA", city="Den Haag", country="Nederland"
    )
    first_badge = UserBadge.objects.filter(user=member).order_by("badge__milestone_dips").first()
    if first_badge is not None:
        physical_badges_mark(award_ids=[first_badge.pk], status=PhysicalStatus.SENT)


def _events() -> None:
    now = timezone.localtime()
    for title, days, time, location, description, maximum in DEMO_EVENTS:
        hour, minute = map(int, time.split(":"))
        when = (now + datetime.timedelta(days=days)).replace(hour=hour, minute=minute, second=0, microsecond=0)
        event, created = Event.objects.get_or_create(
            title=title,
            defaults={
                "event_date": when,
                "location": location,
                "description": description,
                "max_participants": maximum,
            },
        )
        if created and title == WAITLIST_EVENT:
            _fill_with_waitlist(event)


def _fill_with_waitlist(event: Event) -> None:
    """Two others take the places, a third waits, and the demo member waits behind them (place 2)."""
    others = [
        User.objects.get_or_create(email=f"{name}@koudwater.example", defaults={"full_name": name.title()})[0]
        for name in ("ijsbeer", "zeehond", "walrus")
    ]
    for other in others[:2]:
        event_join(user=other, event_id=event.pk)
    event_sign_up(user=others[2], event_id=event.pk)
    member = User.objects.filter(email=DEMO_MEMBER_EMAIL).first()
    if member is not None:
        event_sign_up(user=member, event_id=event.pk)


def _demo_photo(seed: int) -> ProcessedPhoto:
    """A small drawn 'photo' of water and sky, so the demo's collage has something to show."""
    image = Image.new("RGB", (640, 480), (180, 215, 235))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 250, 640, 480), fill=(20 + seed * 8, 90 + seed * 4, 140))
    draw.ellipse((440 - seed * 10, 40, 540 - seed * 10, 140), fill=(250, 240, 200))
    for wave in range(260, 480, 30):
        draw.arc((-40, wave, 680, wave + 40), 200, 340, fill=(230, 245, 250), width=3)
    full, thumb = io.BytesIO(), io.BytesIO()
    image.save(full, format="JPEG", quality=85)
    image.resize((320, 240)).save(thumb, format="JPEG", quality=80)
    return ProcessedPhoto(full=full.getvalue(), thumbnail=thumb.getvalue())
