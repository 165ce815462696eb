"""Load data for `make bench`: a big club's worth of members, dips, badges, photos, invitations and events.

    python manage.py seed_load_data                   # 2,000 members, 100,000 dips, 2,000 photos, ...
    python manage.py seed_load_data --members 20 --dips-per-member 10 --photos 15 --invitations 30 --events 4

Idempotent: when the load data is already there with the asked-for numbers it says so and changes
nothing; when it is missing, partial or of other numbers, it removes every load row (and the load
photo files) and writes the whole set again, in one transaction. `--reset` forces that. The same seed
gives the same club (names, plans, which dips have photos); only the dates move with today.

Everything is written with bulk inserts. The rows follow the app's own rules, as `dip_register` and
`challenge_start` would have made them: numbers 1..n per card, one active card per member, archived
cards are completed ones, `completed_at` is the moment of the target dip, and a UserBadge exists for
exactly every milestone a card has reached, earned at the moment of that dip.

Every load account signs in with the password below: it is hashed once and the hash is shared.
The demo catalogue (challenges and badges from the data migration) is read, never changed.
"""

import datetime
import io
import random
import time

from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP
from django.contrib.auth.hashers import make_password
from django.core.files.base import ContentFile
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.utils import timezone
from PIL import Image, ImageDraw

from apps.accounts.models import User, UserRole
from apps.challenges.models import Badge, Challenge, Dip, UserBadge, UserChallenge, photo_storage
from apps.events.models import Event, EventParticipant
from apps.invitations.models import CODE_LENGTH, VALID_DAYS, Invitation
from apps.invitations.services import CODE_ALPHABET

LOAD_DOMAIN = "load.koudwater.test"
LOAD_PASSWORD = "ijskoud-load"  # noqa: S105 - load-test accounts on a bench database, printed on purpose
LOAD_ADMIN_EMAIL = f"admin@{LOAD_DOMAIN}"
# The load admin's authenticator-app secret: the admin role needs a second factor, and bench/signin.py
# answers the second sign-in step with the code of this secret (RFC 6238).
LOAD_ADMIN_TOTP_SECRET = "KOUDWATERLOADADMINBENCHTOTP23456"  # noqa: S105 - bench data, printed on purpose
EVENT_PREFIX = "Load-event"
PHOTO_FOLDER = "load"  # every load photo lives under this folder of the photos storage


def member_email(number: int) -> str:
    return f"lid{number:04d}@{LOAD_DOMAIN}"


# The bench signs in as this member: three cards (two archived, one active with target - 1 dips).
BENCH_MEMBER_EMAIL = member_email(1)

FIRST_NAMES = [
    "Anne", "Bram", "Daan", "Emma", "Femke", "Gijs", "Hanna", "Isa", "Jesse", "Julia", "Lars", "Lotte", "Maud",
    "Milan", "Noor", "Olivier", "Pien", "Ruben", "Sanne", "Sem", "Tess", "Thijs", "Vera", "Wouter", "Yara", "Zoë",
]  # fmt: skip
LAST_NAMES = [
    "de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Visser", "Smit", "Meijer", "de Boer",
    "Mulder", "de Groot", "Bos", "Vos", "Peters", "Hendriks", "van Leeuwen", "Dekker", "Brouwer", "de Wit",
]  # fmt: skip
EVENT_KINDS = ["Ochtendplons", "Nieuwjaarsduik", "Zonsopgangduik", "Volle-maanplons", "IJsbad-workshop"]
EVENT_PLACES = ["Sloterplas", "Kralingse Plas", "Strand Scheveningen", "Het Twiske", "De Nieuwe Meer"]
DIP_GAPS_DAYS = [1, 1, 1, 2, 2, 3, 4, 7]  # days between two dips of one member


def _load_users():
    return User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}")


def _load_members():
    return _load_users().exclude(email=LOAD_ADMIN_EMAIL)


def load_admin_second_factor() -> None:
    """Give the load admin its authenticator app when it has none (also on load data seeded before)."""
    admin = User.objects.filter(email=LOAD_ADMIN_EMAIL).first()
    if admin is not None and not Authenticator.objects.filter(user=admin, type=Authenticator.Type.TOTP).exists():
        TOTP.activate(admin, LOAD_ADMIN_TOTP_SECRET)


def load_counts() -> dict:
    members = _load_members()
    dips = Dip.objects.filter(user__in=members)
    return {
        "members": members.count(),
        "dips": dips.count(),
        "photos": dips.exclude(photo="").count(),
        "invitations": Invitation.objects.filter(invited_by__email=LOAD_ADMIN_EMAIL).count(),
        "events": Event.objects.filter(title__startswith=EVENT_PREFIX).count(),
    }


def delete_without_loading(queryset) -> int:
    """DELETE ... WHERE pk IN (subquery): no rows loaded into Python and no per-row signals. Only for
    dips and awards, whose photo files `load_data_remove` deletes itself."""
    meta = queryset.model._meta
    quote = connection.ops.quote_name
    subquery, params = queryset.values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} IN ({subquery})",  # noqa: S608 - names from model meta
            params,
        )
        return cursor.rowcount


def load_data_remove() -> str:
    """Remove every load row and the load photo files. The demo catalogue and other users stay."""
    with transaction.atomic():
        users = _load_users()
        awards = delete_without_loading(UserBadge.objects.filter(user__in=users))
        dips = delete_without_loading(Dip.objects.filter(user__in=users))
        Invitation.objects.filter(invited_by__in=users).delete()
        Invitation.objects.filter(used_by__in=users).delete()
        Event.objects.filter(title__startswith=EVENT_PREFIX).delete()
        user_count, _ = users.delete()
    files = _delete_folder(photo_storage(), PHOTO_FOLDER)
    return f"{dips} plonsen, {awards} badges, {files} fotobestanden, {user_count} rijen met gebruikers"


def refresh_statistics() -> None:
    """After a bulk load, as PostgreSQL's manual advises: fresh planner statistics (without them the
    planner guesses row counts and picks hash joins over whole tables), and a vacuum so that index-only
    scans need not visit the table. Autovacuum would get there too, a minute or so later."""
    if connection.vendor != "postgresql":
        return
    # VACUUM cannot run inside a transaction (tests run in one): then ANALYZE alone.
    command = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
    tables = [model._meta.db_table for model in (User, UserRole, UserChallenge, Dip, UserBadge, Invitation)]
    tables += [Event._meta.db_table, EventParticipant._meta.db_table]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"{command} {connection.ops.quote_name(table)}")


def _delete_folder(storage, folder: str) -> int:
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:
        return 0
    removed = 0
    for name in files:
        storage.delete(f"{folder}/{name}")
        removed += 1
    for sub in folders:
        removed += _delete_folder(storage, f"{folder}/{sub}")
    return removed


def _tiny_jpegs(count: int, side: int) -> list[bytes]:
    """Real JPEGs: a cold-water gradient in a few shades, so the admin collage shows something."""
    images = []
    for index in range(count):
        image = Image.new("RGB", (side, side))
        draw = ImageDraw.Draw(image)
        for y in range(side):
            shade = int(255 * y / side)
            draw.line([(0, y), (side, y)], fill=(20 + index * 12 % 80, 90 + shade // 3, 140 + shade // 3))
        draw.ellipse([side // 4, side // 4, 3 * side // 4, 3 * side // 4], outline=(255, 255, 255))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=80)
        images.append(out.getvalue())
    return images


class LoadSeeder:
    def __init__(self, options: dict, *, log):
        self.members = options["members"]
        self.dips_per_member = options["dips_per_member"]
        self.photos = options["photos"]
        self.invitations = options["invitations"]
        self.events = options["events"]
        self.seed = options["seed"]
        self.batch = options["batch_size"]
        self.log = log
        self.now = timezone.now()
        self.today = timezone.localdate(self.now)
        self.written_files: list[str] = []
        self._clock = time.monotonic()

    def _step(self, text: str):
        now = time.monotonic()
        self.log(f"  {text} ({now - self._clock:.1f} s)")
        self._clock = now

    def remove_written_files(self):
        storage = photo_storage()
        for name in self.written_files:
            storage.delete(name)

    # --- catalogue ---------------------------------------------------------------------------------

    def _catalogue(self):
        waterdieren = Challenge.objects.filter(category=Challenge.Category.WATERDIEREN).order_by("pk").first()
        starter = Challenge.objects.filter(category=Challenge.Category.NORMAL).order_by("target_dips", "pk").first()
        if waterdieren is None or starter is None:
            raise CommandError("De catalogus ontbreekt: draai eerst `python manage.py seed_catalogue`.")
        self.waterdieren, self.starter = waterdieren, starter
        self.badges: dict[int, dict[int, int]] = {}  # challenge id -> milestone -> badge id
        for badge in Badge.objects.filter(challenge__in=[waterdieren, starter]):
            self.badges.setdefault(badge.challenge_id, {})[badge.milestone_dips] = badge.pk

    # --- plans -------------------------------------------------------------------------------------

    def _dip_budgets(self, rng: random.Random) -> tuple[list[int], bool]:
        """Dips per member: a long tail (most swim a little, some a lot), exactly members × average in all.
        The first member is the bench member (a heavy history) when the total leaves room for one."""
        total = self.members * self.dips_per_member
        heavy = self.starter.target_dips + 2 * self.waterdieren.target_dips - 1
        budgets = [0] * self.members
        first = 0
        if total >= heavy and self.dips_per_member > 0:
            budgets[0] = heavy
            first = 1
        others = range(first, self.members)
        mean = self.dips_per_member
        for index in others:
            budgets[index] = min(int(rng.expovariate(1 / mean)) if mean else 0, 6 * mean)
        missing = total - sum(budgets)
        candidates = list(others)
        while missing and candidates:
            index = rng.choice(candidates)
            if missing > 0:
                budgets[index] += 1
                missing -= 1
            elif budgets[index] > 0:
                budgets[index] -= 1
                missing += 1
            else:
                candidates.remove(index)
        return budgets, first == 1

    def _cards_for(self, budget: int, rng: random.Random, *, bench_member: bool) -> list[tuple[Challenge, int]]:
        """Chronological cards: (challenge, dips). The last card is the active one; the others are archived
        and therefore completed (challenge_start archives only completed cards)."""
        starter, water = self.starter, self.waterdieren
        if bench_member:
            return [(starter, starter.target_dips), (water, water.target_dips), (water, water.target_dips - 1)]
        cards = []
        remaining = budget
        if remaining > starter.target_dips and rng.random() < 0.35:
            cards.append((starter, starter.target_dips))
            remaining -= starter.target_dips
        while remaining > water.target_dips:
            cards.append((water, water.target_dips))
            remaining -= water.target_dips
        if remaining <= starter.target_dips and rng.random() < 0.3:
            cards.append((starter, remaining))
        else:
            cards.append((water, remaining))
        return cards

    @staticmethod
    def _moment(day: datetime.date, rng: random.Random) -> datetime.datetime:
        local = datetime.datetime.combine(day, datetime.time(6, 30)) + datetime.timedelta(minutes=rng.randint(0, 720))
        return timezone.make_aware(local)

    # --- the run -----------------------------------------------------------------------------------

    def run(self):
        """Write the whole club, step by step; each step logs what it wrote and how long it took."""
        self._catalogue()
        password = make_password(LOAD_PASSWORD)  # once: PBKDF2 is slow on purpose
        self._step("wachtwoord gehasht")
        member_plans = self._member_plans()
        self._step(f"plannen gemaakt voor {self.members} leden")
        users, admin = self._write_users(member_plans, password)
        self._step(f"{len(users)} leden en 1 admin")
        cards, card_plans = self._write_cards(users, member_plans)
        self._step(f"{len(cards)} stempelkaarten")
        dip_total, photo_total, award_total = self._write_dips(cards, card_plans)
        self._step(f"{dip_total} plonsen, {photo_total} foto's, {award_total} badges")
        self._invitations(admin, users)
        self._step(f"{self.invitations} uitnodigingen")
        participants = self._events(users)
        self._step(f"{self.events} events met {participants} deelnemers")

    def _member_plans(self) -> list:
        """Per member: (joined_at, [(challenge, dips, [(dip_date, created_at), ...]), ...]), oldest card first."""
        # One generator for every plan (the cards step draws from it too): the same seed gives the same club.
        self.plan_rng = plan_rng = random.Random(self.seed)
        budgets, with_bench_member = self._dip_budgets(plan_rng)
        member_plans = []
        for index, budget in enumerate(budgets):
            cards = self._cards_for(budget, plan_rng, bench_member=with_bench_member and index == 0)
            total = sum(dips for _, dips in cards)
            # Dates backwards from a recent last dip, one dip per day at most.
            day = self.today - datetime.timedelta(days=plan_rng.randint(0, 10))
            days = []
            for _ in range(total):
                days.append(day)
                day -= datetime.timedelta(days=plan_rng.choice(DIP_GAPS_DAYS))
            days.reverse()
            moments = []
            for dip_day in days:
                moment = min(self._moment(dip_day, plan_rng), self.now)
                moments.append((timezone.localdate(moment), moment))
            first = moments[0][1] if moments else self.now - datetime.timedelta(days=plan_rng.randint(1, 30))
            joined = first - datetime.timedelta(days=plan_rng.randint(1, 60), minutes=plan_rng.randint(0, 600))
            laid_out, cursor = [], 0
            for challenge, dips in cards:
                laid_out.append((challenge, dips, moments[cursor : cursor + dips]))
                cursor += dips
            member_plans.append((joined, laid_out))
        return member_plans

    def _write_users(self, member_plans: list, password: str) -> tuple[list[User], User]:
        name_rng = random.Random(self.seed + 1)
        users = [
            User(
                email=member_email(number),
                full_name=f"{name_rng.choice(FIRST_NAMES)} {name_rng.choice(LAST_NAMES)}",
                newsletter_consent=name_rng.random() < 0.4,
                created_at=member_plans[number - 1][0],
                # The dips _write_dips writes for this member (bulk writes bypass the dip services' counter).
                dip_count=sum(len(moments) for _challenge, _dips, moments in member_plans[number - 1][1]),
                password=password,
            )
            for number in range(1, self.members + 1)
        ]
        users = User.objects.bulk_create(users, batch_size=self.batch)
        admin = User.objects.create(
            email=LOAD_ADMIN_EMAIL,
            full_name="Load Admin",
            password=password,
            created_at=self.now - datetime.timedelta(days=800),
        )
        UserRole.objects.create(user=admin, role=UserRole.Role.ADMIN)
        load_admin_second_factor()
        return users, admin

    def _write_cards(self, users: list[User], member_plans: list) -> tuple[list[UserChallenge], list]:
        """Every member's cards, oldest first; the last one is active. Returns the cards and each card's dips."""
        plan_rng = self.plan_rng
        cards = []
        card_plans = []  # per card, in the same order: its [(dip_date, created_at), ...]
        for user, (joined, laid_out) in zip(users, member_plans, strict=True):
            previous_end = joined
            for position, (challenge, dips, moments) in enumerate(laid_out):
                active = position == len(laid_out) - 1
                if moments:
                    started = max(previous_end, moments[0][1] - datetime.timedelta(minutes=plan_rng.randint(5, 600)))
                else:
                    started = previous_end + (self.now - previous_end) * plan_rng.random()
                completed = moments[-1][1] if dips == challenge.target_dips else None
                cards.append(
                    UserChallenge(
                        user=user,
                        challenge=challenge,
                        challenge_type=challenge.category,
                        is_active=active,
                        started_at=started,
                        completed_at=completed,
                    )
                )
                card_plans.append(moments)
                previous_end = completed or started
        return UserChallenge.objects.bulk_create(cards, batch_size=self.batch), card_plans

    def _write_dips(self, cards: list[UserChallenge], card_plans: list) -> tuple[int, int, int]:
        """The dips of every card (some with a photo file) and a badge for every milestone reached."""
        photo_dips = self._photo_choice(cards, card_plans)
        full_images, thumbnails = _tiny_jpegs(12, 64), _tiny_jpegs(12, 32)
        storage = photo_storage()
        dips_batch: list[Dip] = []
        awards: list[UserBadge] = []
        dip_total = photo_total = 0
        for card_index, (card, moments) in enumerate(zip(cards, card_plans, strict=True)):
            milestones = self.badges.get(card.challenge_id, {})
            for number, (dip_date, moment) in enumerate(moments, start=1):
                photo = thumbnail = ""
                if (card_index, number) in photo_dips:
                    variant = (card.pk + number) % len(full_images)
                    stem = f"{PHOTO_FOLDER}/{card.user_id}/{card.pk}-{number:03d}"
                    photo = storage.save(f"{stem}.jpg", ContentFile(full_images[variant]))
                    self.written_files.append(photo)
                    thumbnail = storage.save(f"{stem}.thumb.jpg", ContentFile(thumbnails[variant]))
                    self.written_files.append(thumbnail)
                    photo_total += 1
                dips_batch.append(
                    Dip(
                        user_id=card.user_id,
                        user_challenge=card,
                        number=number,
                        dip_date=dip_date,
                        photo=photo,
                        thumbnail=thumbnail,
                        created_at=moment,
                    )
                )
                if number in milestones:
                    awards.append(
                        UserBadge(
                            user_id=card.user_id, badge_id=milestones[number], user_challenge=card, earned_at=moment
                        )
                    )
                if len(dips_batch) >= self.batch:
                    Dip.objects.bulk_create(dips_batch)
                    dip_total += len(dips_batch)
                    dips_batch = []
        if dips_batch:
            Dip.objects.bulk_create(dips_batch)
            dip_total += len(dips_batch)
        UserBadge.objects.bulk_create(awards, batch_size=self.batch)
        return dip_total, photo_total, len(awards)

    def _photo_choice(self, cards: list[UserChallenge], card_plans: list) -> set[tuple[int, int]]:
        """Which dips get a photo: every fifth dip of the bench member's active card, the rest at random."""
        rng = random.Random(self.seed + 2)
        chosen: set[tuple[int, int]] = set()
        bench_user = cards[0].user_id if cards else None
        for index, card in enumerate(cards):
            if card.user_id == bench_user and card.is_active:
                for number in range(5, len(card_plans[index]) + 1, 5):
                    if len(chosen) < self.photos:
                        chosen.add((index, number))
        every_dip = [
            (index, number) for index, moments in enumerate(card_plans) for number in range(1, len(moments) + 1)
        ]
        remaining = [key for key in every_dip if key not in chosen]
        chosen.update(rng.sample(remaining, min(self.photos - len(chosen), len(remaining))))
        return chosen

    def _invitations(self, admin: User, users: list[User]):
        """A mix: 40% used (by a load member, at the moment they joined), 35% active, 25% expired."""
        rng = random.Random(self.seed + 3)
        total = self.invitations
        used = min(round(total * 0.4), len(users))
        active = round(total * 0.35)
        codes: set[str] = set()
        while len(codes) < total:
            wanted = {"".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)) for _ in range(total - len(codes))}
            wanted -= set(Invitation.objects.filter(code__in=wanted).values_list("code", flat=True))
            codes |= wanted
        codes_in_order = sorted(codes)
        rng.shuffle(codes_in_order)
        rows = []
        for index, code in enumerate(codes_in_order):
            if index < used:
                member = users[index]
                created = member.created_at - datetime.timedelta(days=rng.randint(1, 20))
                rows.append(
                    Invitation(
                        code=code,
                        email=member.email if rng.random() < 0.5 else None,
                        invited_by=admin,
                        created_at=created,
                        expires_at=created + datetime.timedelta(days=VALID_DAYS),
                        used_at=member.created_at,
                        used_by=member,
                    )
                )
                continue
            if index < used + active:
                created = self.now - datetime.timedelta(
                    days=rng.randint(0, VALID_DAYS - 1), minutes=rng.randint(1, 600)
                )
            else:
                created = self.now - datetime.timedelta(days=rng.randint(VALID_DAYS + 1, 400))
            rows.append(
                Invitation(
                    code=code,
                    email=f"uitnodiging{index + 1:04d}@{LOAD_DOMAIN}" if rng.random() < 0.6 else None,
                    invited_by=admin,
                    created_at=created,
                    expires_at=created + datetime.timedelta(days=VALID_DAYS),
                )
            )
        Invitation.objects.bulk_create(rows, batch_size=self.batch)

    def _events(self, users: list[User]) -> int:
        """Half in the past, half ahead, every few days; some open-ended, some capped, some full."""
        rng = random.Random(self.seed + 4)
        events, sign_ups = [], []
        for index in range(self.events):
            offset_days = (index - self.events // 2) * 5 + 1
            day = self.today + datetime.timedelta(days=offset_days)
            maximum = None if index % 3 == 0 else rng.choice([8, 12, 20, 30, 50])
            if maximum is None:
                count = rng.randint(0, 80)
            elif index % 4 == 1:
                count = maximum  # full
            else:
                count = rng.randint(0, maximum)
            event = Event(
                title=f"{EVENT_PREFIX} {index + 1:02d}: {EVENT_KINDS[index % len(EVENT_KINDS)]}",
                event_date=timezone.make_aware(datetime.datetime.combine(day, datetime.time(9, 0))),
                location=EVENT_PLACES[index % len(EVENT_PLACES)],
                description="Samen het koude water in. Neem een warme trui en een thermoskan mee.",
                max_participants=maximum,
                is_active=index % 10 != 9,
                created_at=self.now - datetime.timedelta(days=200),
            )
            events.append(event)
            sign_ups.append(rng.sample(users, min(count, len(users))))
        events = Event.objects.bulk_create(events, batch_size=self.batch)
        rows = []
        for event, members in zip(events, sign_ups, strict=True):
            for member in members:
                moment = min(event.event_date, self.now) - datetime.timedelta(hours=rng.randint(1, 24 * 20))
                rows.append(EventParticipant(event=event, user=member, created_at=max(moment, event.created_at)))
        EventParticipant.objects.bulk_create(rows, batch_size=self.batch)
        return len(rows)
