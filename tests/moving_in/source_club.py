"""A database in the original app's shape (supabase_shape.sql), filled the way a real club's is: bcrypt hashes
made by the bcrypt library, photos made by Pillow with EXIF GPS and an orientation tag, and every anomaly the
old app let through. Used by the tests here and by bench/import.py (a club of any size)."""

import datetime
import io
import json
import secrets
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import bcrypt
import psycopg
from PIL import Image

SHAPE = Path(__file__).with_name("supabase_shape.sql")
PUBLIC_URL = "https://abcdefghij.supabase.co/storage/v1/object/public/dip_photos/"
UTC = datetime.UTC


def server_url(database_url: str, name: str) -> str:
    parts = urlsplit(database_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def source_database_create(database_url: str) -> tuple[str, str]:
    """A fresh database beside the app's (same server), in the original's shape. Returns (name, url)."""
    name = f"koud_import_source_{secrets.token_hex(4)}"
    with psycopg.connect(server_url(database_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = server_url(database_url, name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SHAPE.read_text())
    return name, url


def source_database_drop(database_url: str, name: str) -> None:
    with psycopg.connect(server_url(database_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bcrypt_hash(password: str, prefix: bytes = b"2a", rounds: int = 10) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds, prefix=prefix)).decode()


def photo_bytes(*, width=64, height=32, orientation=6, fmt="JPEG") -> bytes:
    """A landscape photo (red left, blue right) that a phone stored on its side: EXIF orientation 6 says
    "turn 90° clockwise to view", and GPS says where the swimming spot is."""
    image = Image.new("RGB", (width, height), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, width // 2, height))
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x8825] = {1: "N", 2: (52.0, 22.0, 30.0), 3: "E", 4: (4.0, 53.0, 40.0)}
    out = io.BytesIO()
    image.save(out, format=fmt, exif=exif.tobytes())
    return out.getvalue()


@dataclass
class Writer:
    conn: psycopg.Connection
    photo_dir: Path | None
    photo_store: dict[str, bytes] = field(default_factory=dict)  # key → bytes, for an S3 upload

    def user(self, email, *, password_hash="", name="", newsletter=False, created=None, provider="email", **extra):
        uid = uuid.uuid4()
        created = created or datetime.datetime(2025, 1, 5, 9, 0, tzinfo=UTC)
        meta = json.dumps({"full_name": name, "newsletter_consent": newsletter})
        self.conn.execute(
            "INSERT INTO auth.users (id, email, encrypted_password, raw_user_meta_data, created_at, email_confirmed_at,"
            " deleted_at, is_anonymous) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [uid, email, password_hash, meta, created, created, extra.get("deleted_at"), False],
        )
        self.conn.execute(
            "INSERT INTO auth.identities (provider_id, user_id, provider) VALUES (%s, %s, %s)",
            [str(uid), uid, provider],
        )
        self.conn.execute(
            "INSERT INTO public.profiles (id, email, full_name, created_at, newsletter_consent)"
            " VALUES (%s,%s,%s,%s,%s)",
            [uid, email, name, created, newsletter],
        )
        return uid

    def role(self, uid, role="admin"):
        self.conn.execute("INSERT INTO public.user_roles (user_id, role) VALUES (%s, %s)", [uid, role])

    def challenge(self, name, category, target, badges=()):
        cid = uuid.uuid4()
        self.conn.execute(
            "INSERT INTO public.challenges (id, name, category, target_dips, is_active) VALUES (%s,%s,%s,%s,true)",
            [cid, name, category, target],
        )
        ids = {}
        for milestone, badge_name in badges:
            ids[milestone] = uuid.uuid4()
            self.conn.execute(
                "INSERT INTO public.badges (id, challenge_id, name, milestone_dips) VALUES (%s,%s,%s,%s)",
                [ids[milestone], cid, badge_name, milestone],
            )
        return cid, ids

    def card(self, uid, cid, *, active=True, completed_at=None, created=None, category="waterdieren"):
        card_id = uuid.uuid4()
        self.conn.execute(
            "INSERT INTO public.user_challenges (id, user_id, challenge_id, is_active, completed_at, challenge_type,"
            " created_at) VALUES (%s,%s,%s,%s,%s,%s,%s)",
            [card_id, uid, cid, active, completed_at, category, created or datetime.datetime(2025, 1, 6, tzinfo=UTC)],
        )
        return card_id

    def dips(self, uid, card_id, count, *, start=None, photo=None):
        """`count` dips a day apart at 08:00 UTC; `photo(i)` → bytes or None or a marker ("missing")."""
        start = start or datetime.datetime(2025, 1, 7, 8, 0, tzinfo=UTC)
        rows, ids = [], []
        for i in range(count):
            moment = start + datetime.timedelta(days=i)
            url = None
            content = photo(i) if photo else None
            if content is not None:
                key = f"{uid}/{int(moment.timestamp() * 1000)}.jpg"
                url = PUBLIC_URL + key
                if content != "missing":
                    self.photo_store[key] = content
                    if self.photo_dir is not None:
                        path = self.photo_dir / key
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_bytes(content)
            dip_id = uuid.uuid4()
            ids.append(dip_id)
            rows.append((dip_id, uid, card_id, moment.date(), url, moment))
        with self.conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO public.dips (id, user_id, user_challenge_id, dip_date, photo_url, created_at)"
                " VALUES (%s,%s,%s,%s,%s,%s)",
                rows,
            )
        return ids

    def award(self, uid, badge_id, card_id, earned_at):
        award_id = uuid.uuid4()
        self.conn.execute(
            "INSERT INTO public.user_badges (id, user_id, badge_id, user_challenge_id, earned_at)"
            " VALUES (%s,%s,%s,%s,%s)",
            [award_id, uid, badge_id, card_id, earned_at],
        )
        return award_id


WATERDIEREN = [
    (5, "Waterslak"),
    (10, "Kikker"),
    (25, "Meerkoet"),
    (50, "Aalscholver"),
    (75, "Meerval"),
    (100, "IJsvogel"),
]
PASSWORDS = {"anna": "Anna's oude wachtwoord", "bram": "zwemmen-in-de-winter"}
BROKEN = b"\xff\xd8\xff\xe0 dit is geen jpeg"


@dataclass
class SmallClub:
    """What the small club holds, for the tests' expectations."""

    ids: dict[str, uuid.UUID] = field(default_factory=dict)
    photo_store: dict[str, bytes] = field(default_factory=dict)


def fill_small_club(url: str, photo_dir: Path | None, *, conflict_email: str = "marit@example.nl") -> SmallClub:
    club = SmallClub()
    with psycopg.connect(url, autocommit=False) as conn:
        w = Writer(conn, photo_dir)
        water, wbadges = w.challenge("Waterdieren Stempelkaart", "waterdieren", 100, WATERDIEREN)
        first, fbadges = w.challenge("Eerste Plonsen", "normal", 5, [(5, "Waterslak")])
        dive, dbadges = w.challenge("Nieuwjaarsduik", "special", 1, [(1, "IJsbeer")])
        ids = club.ids
        # Anna: admin, $2a$; a card with 103 dips (3 over the target), duplicate Waterslak, Meerval missing.
        ids["anna"] = w.user(
            "anna@oud.nl", password_hash=bcrypt_hash(PASSWORDS["anna"]), name="Anna Oud", newsletter=True
        )
        w.role(ids["anna"])
        card = ids["anna_card"] = w.card(ids["anna"], water, completed_at=datetime.datetime(2025, 4, 20, tzinfo=UTC))
        w.dips(ids["anna"], card, 103, photo=lambda i: photo_bytes() if i == 0 else None)
        for milestone, _ in WATERDIEREN:
            if milestone != 75:
                w.award(
                    ids["anna"],
                    wbadges[milestone],
                    card,
                    datetime.datetime(2025, 1, 1, tzinfo=UTC) + datetime.timedelta(days=milestone),
                )
        w.award(ids["anna"], wbadges[5], card, datetime.datetime(2025, 1, 20, tzinfo=UTC))  # duplicate, newer
        # Bram: $2b$; two active stamp cards (12 and 3 dips); Meerkoet given at 12 dips; a dip around midnight.
        ids["bram"] = w.user("bram@oud.nl", password_hash=bcrypt_hash(PASSWORDS["bram"], b"2b"), name="Bram Oud")
        one = ids["bram_card"] = w.card(ids["bram"], water)
        two = w.card(ids["bram"], water, created=datetime.datetime(2025, 2, 1, tzinfo=UTC))
        w.dips(ids["bram"], one, 12)
        w.dips(ids["bram"], two, 3, start=datetime.datetime(2025, 2, 2, 8, 0, tzinfo=UTC))
        for milestone in (5, 10, 25):
            w.award(ids["bram"], wbadges[milestone], one, datetime.datetime(2025, 2, 1, tzinfo=UTC))
        # 23:30 UTC on 1 March is 00:30 on 2 March in Amsterdam, but the member chose 1 March.
        conn.execute(
            "INSERT INTO public.dips (user_id, user_challenge_id, dip_date, created_at) VALUES (%s,%s,%s,%s)",
            [ids["bram"], two, datetime.date(2025, 3, 1), datetime.datetime(2025, 3, 1, 23, 30, tzinfo=UTC)],
        )
        # Carla: signed in with Google (no password); Eerste Plonsen completed with 4 dips; three photos:
        # a good one, a missing one and a broken one.
        ids["carla"] = w.user("carla@oud.nl", name="Carla Oud", provider="google")
        card = ids["carla_card"] = w.card(
            ids["carla"], first, completed_at=datetime.datetime(2025, 1, 12, tzinfo=UTC), category="normal"
        )
        photos = {0: photo_bytes(), 1: "missing", 2: BROKEN}
        w.dips(ids["carla"], card, 4, photo=photos.get)
        # Dirk: an argon2 hash GoTrue took in from elsewhere; the special challenge with its own badge.
        ids["dirk"] = w.user("dirk@oud.nl", password_hash="$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", name="Dirk")
        card = w.card(ids["dirk"], dive, completed_at=datetime.datetime(2025, 1, 1, 12, tzinfo=UTC), category="special")
        w.dips(ids["dirk"], card, 1, start=datetime.datetime(2025, 1, 1, 11, 0, tzinfo=UTC))
        w.award(ids["dirk"], dbadges[1], card, datetime.datetime(2025, 1, 1, 12, tzinfo=UTC))
        # Deleted in the old app; a second account with Anna's address in capitals; someone already here.
        w.user(
            "weg@oud.nl",
            password_hash=bcrypt_hash("x"),
            name="Weg",
            deleted_at=datetime.datetime(2025, 5, 1, tzinfo=UTC),
        )
        later = datetime.datetime(2025, 3, 1, tzinfo=UTC)
        w.user("ANNA@oud.nl", password_hash=bcrypt_hash("anders"), name="Anna Twee", created=later)
        ids["marit"] = w.user(conflict_email, password_hash=bcrypt_hash("marit-oud"), name="Marit Oud")
        card = ids["marit_card"] = w.card(ids["marit"], water)
        w.dips(ids["marit"], card, 6)
        # Invitations: a usable one, one of another shape (still usable), a used, an expired and an invalid one.
        future = datetime.datetime.now(UTC) + datetime.timedelta(days=10)
        past = datetime.datetime.now(UTC) - datetime.timedelta(days=10)
        for code, expires, used_at, used_by in [
            ("ABCD2345", future, None, None),
            ("welkom-2025", future, None, None),
            ("USED1234", future, past, ids["bram"]),
            ("OLDCODE1", past, None, None),
            ("geen geldige code!", future, None, None),
        ]:
            conn.execute(
                "INSERT INTO public.invitations (code, invited_by, expires_at, used_at, used_by, created_at)"
                " VALUES (%s,%s,%s,%s,%s,%s)",
                [code, ids["anna"], expires, used_at, used_by, past - datetime.timedelta(days=30)],
            )
        # Events: one over-full (max 2, three signed up), one with a single participant.
        ids["duik"] = event = uuid.uuid4()
        conn.execute(
            "INSERT INTO public.events (id, title, event_date, location, max_participants) VALUES (%s,%s,%s,%s,%s)",
            [event, "Nieuwjaarsduik", future, "Strand", 2],
        )
        for who in ("anna", "bram", "carla"):
            conn.execute("INSERT INTO public.event_participants (event_id, user_id) VALUES (%s,%s)", [event, ids[who]])
        other = uuid.uuid4()
        conn.execute(
            "INSERT INTO public.events (id, title, event_date, max_participants) VALUES (%s,%s,%s,%s)",
            [other, "Zondagplons", future, None],
        )
        conn.execute("INSERT INTO public.event_participants (event_id, user_id) VALUES (%s,%s)", [other, ids["dirk"]])
        conn.commit()
    club.photo_store = w.photo_store
    return club
